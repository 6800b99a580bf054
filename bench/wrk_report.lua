-- wrk script of bench/load.py.
--
-- With BENCH_STATES_FROM set, every request asks for a calculator state no earlier request of the run asked for:
-- request n (counted across all threads from BENCH_STATES_FROM on) carries concurrency = n % 64 + 1,
-- ram = (n // 64) % 4097 and cached = (n // 262208) % 101: 26,483,008 distinct query strings, so no page cache
-- can answer. Without it, every request is the URL given on the command line (wrk's own static request).
--
-- At the end it prints one line, "BENCH_JSON {...}", with the counts and latency percentiles in microseconds.

local states_from = tonumber(os.getenv("BENCH_STATES_FROM") or "")
local thread_count = tonumber(os.getenv("BENCH_WRK_THREADS") or "1")

local threads_set_up = 0

function setup(thread)
   thread:set("thread_index", threads_set_up)
   threads_set_up = threads_set_up + 1
end

if states_from then
   local sent = 0

   function request()
      local n = states_from + thread_index + sent * thread_count
      sent = sent + 1
      local separator = string.find(wrk.path, "?", 1, true) and "&" or "?"
      local path = wrk.path .. separator
         .. "concurrency=" .. (n % 64 + 1)
         .. "&ram=" .. (math.floor(n / 64) % 4097)
         .. "&cached=" .. (math.floor(n / 262208) % 101)
      return wrk.format(nil, path)
   end
end

function done(summary, latency, requests)
   local errors = summary.errors
   io.write(string.format(
      'BENCH_JSON {"requests": %d, "duration_us": %d, "bytes": %d, "connect": %d, "read": %d, "write": %d, '
         .. '"status": %d, "timeout": %d, "p50_us": %d, "p90_us": %d, "p99_us": %d, "max_us": %d}\n',
      summary.requests, summary.duration, summary.bytes, errors.connect, errors.read, errors.write,
      errors.status, errors.timeout, latency:percentile(50), latency:percentile(90), latency:percentile(99),
      latency.max
   ))
end
