"""Plan serving a monthly volume: the cheapest ways within latency targets, from hosted APIs, rented GPUs and owned
servers.

manage.py plan zai-org/GLM-5.3-Flash --out 10B --ratio 3 --cached 50 --ttft 2 --tpot 50
manage.py plan meta-llama/Llama-3.1-8B-Instruct --out 500M --pct 95 --spot 1 --exclude aws,gcp --json
manage.py plan zai-org/GLM-5.3-Flash --out 100B --price dgx-h100=250000 --years 4 --kwh 0.12
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError
from django.http import QueryDict
from django.utils import timezone

from calculator.api.plan import plan_json
from calculator.page.basis import page_basis
from calculator.page.planner import PlanAnswer, PlanRow
from calculator.plan_for import plan_for
from calculator.plan_state import FIELD_NAMES, PRICE_PREFIX, SERVER_SLUGS, PlanState, parse_plan, volume_label
from calculator.state import CalculatorState
from calculator.validation.bands import validation_family
from models_catalog.models import Model

PRICE_BASIS = {"estimate": "estimated", "list": "list price", "yours": "your price"}


class Command(BaseCommand):
    help = "The cheapest ways to serve a monthly volume within latency targets: APIs, rented GPUs, owned servers."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("model", help="catalog Hub id, e.g. zai-org/GLM-5.3-Flash")
        parser.add_argument("--out", help="output tokens a month: 500M, 1B, 2.5T (default 1B)")
        parser.add_argument("--ratio", help="input tokens per output token (default 3)")
        parser.add_argument("--cached", help="percent of input served from a prefix cache (default 0)")
        parser.add_argument("--olen", help="output tokens per request (default 1000)")
        parser.add_argument("--peak", help="peak over the average rate (default 2)")
        parser.add_argument("--ttft", help="time to first token at the percentile --pct, seconds (default 2)")
        parser.add_argument("--tpot", help="time per output token at the percentile --pct, milliseconds (default 50)")
        parser.add_argument("--pct", help="the percentile the targets hold at: 50 (median, default) or 95")
        parser.add_argument("--engine", help="vllm (default) or sglang")
        parser.add_argument("--spot", help="1: spot (interruptible) offers count too (default 0)")
        parser.add_argument("--exclude", dest="x", help="providers to leave out, comma-separated: aws,gcp")
        parser.add_argument("--years", help="years an owned server is written off over (default 5)")
        parser.add_argument("--kwh", help="energy, USD per kWh (default 0.0895)")
        parser.add_argument("--pue", help="power usage effectiveness (default 1.54)")
        parser.add_argument("--colo", help="colocation, USD per kW of rated power a month (default 184.06)")
        parser.add_argument(
            "--price", action="append", default=[], help="an owned server's purchase price: dgx-h100=250000"
        )
        parser.add_argument("--json", action="store_true", help="print JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        state = _plan_state(options)
        model = _catalog_model(options["model"])
        basis = page_basis(model, timezone.localdate())
        if basis.sources is None:
            raise CommandError(f"{model.hub_id} cannot be sized: {basis.unsizable}")
        calculator = CalculatorState(engine=state.engine).with_defaults_of(basis.sources.choices)
        answer = plan_for(basis.sources.inputs(calculator), state)
        if options["json"]:
            self.stdout.write(
                json.dumps(plan_json(model.hub_id, state, answer, validation_family(basis.sources.spec)), indent=2)
            )
            return
        self.stdout.write(_heading(model.hub_id, state, answer))
        for row in answer.rows[:12]:
            self.stdout.write(_row_line(row))
        for crossover in answer.crossovers:
            self.stdout.write(
                f"  from {volume_label(crossover.output_tokens_per_month)} output tokens a month: "
                f"{crossover.above} is cheaper than {crossover.below}"
            )
        if answer.unmet:
            self.stdout.write("  no replica within the targets on: " + ", ".join(answer.unmet))


def _plan_state(options: dict[str, Any]) -> PlanState:
    """The planner's state from the command's options, read by the planner's own parser."""
    query = QueryDict(mutable=True)
    for name in FIELD_NAMES:
        if options.get(name) is not None:
            query[name] = str(options[name])
    for given in options["price"]:
        slug, _, price = given.partition("=")
        if slug.strip() not in SERVER_SLUGS:
            raise CommandError(f"--price {given!r}: servers are {', '.join(SERVER_SLUGS)}")
        query[PRICE_PREFIX + slug.strip()] = price
    parsed = parse_plan(query)
    if parsed.unused:
        raise CommandError("; ".join(f"--{u.name} {u.value!r}: {u.reason}" for u in parsed.unused))
    return parsed.state


def _catalog_model(hub_id: str) -> Model:
    try:
        model = Model.objects.filter(hub_id=hub_id).first()
    except DatabaseError as error:
        raise CommandError(f"the catalog cannot be read ({error}); run `make data` first") from None
    if model is None:
        raise CommandError(f"{hub_id!r} is not in the catalog (manage.py estimate reads any Hub id)")
    return model


def _heading(hub_id: str, state: PlanState, answer: PlanAnswer) -> str:
    return (
        f"{hub_id}: {volume_label(state.out)} output tokens a month, {state.ratio:g} input per output "
        f"({state.cached} % cached), peak {state.peak:g}× average; {'median' if state.pct == 50 else 'p95'} "
        f"TTFT ≤ {state.ttft:g} s, TPOT ≤ {state.tpot} ms ({answer.engine}, {answer.precision}; "
        f"{'on-demand and spot' if state.spot else 'on-demand'} offers"
        + (f", without {', '.join(state.x)}" if state.x else "")
        + ")"
    )


def _row_line(row: PlanRow) -> str:
    """One way to serve: its month and price per million output tokens, then what serves it."""
    served = row.served
    head = f"  ${served.monthly_usd:>12,.0f}/month  ${served.per_million_output_usd:>8.2f}/M output  "
    if row.hosted is not None:
        return head + f"API {row.hosted.provider}"
    if row.owned is not None and served.capacity is not None:
        owned, capacity = row.owned, served.capacity
        price = f"${owned.price_usd:,.0f} {PRICE_BASIS[owned.price_basis]}"
        runs = (
            f"llama.cpp at {owned.precision.upper()}"
            if owned.plan is None
            else f"{owned.replicas_per_server} replica(s) of TP {owned.plan.tensor_parallel} each"
        )
        return (
            head + f"owned {served.replicas} × {owned.server.name} ({price}, ${owned.month.total_usd:,.0f} "
            f"a month each), {runs}, {capacity.concurrency} requests each at "
            f"{capacity.tpot_s * 1000:.0f} ms/token, first token {capacity.ttft_s:.2f} s, "
            f"{served.utilisation:.0%} used, limit {capacity.limit}"
        )
    assert row.offer is not None and served.capacity is not None
    ranked, capacity = row.offer.ranked, served.capacity
    return (
        head + f"{served.replicas} × {ranked.instance_gpus} × {ranked.gpu_name} ({ranked.provider_name}"
        f"{', ' + ranked.offer.pricing_kind if ranked.offer.pricing_kind != 'on-demand' else ''}), "
        f"{capacity.concurrency} requests each at {capacity.tpot_s * 1000:.0f} ms/token, "
        f"first token {capacity.ttft_s:.2f} s, {served.utilisation:.0%} used, limit {capacity.limit}"
    )
