"""docker-compose.yml can't be run here (no Docker engine), so it is validated and cross-checked instead."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import missing_service

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"


def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def makefile_recipe(target: str) -> str:
    text = (ROOT / "Makefile").read_text()
    match = re.search(rf"^{re.escape(target)}:.*\n\t(.+)$", text, flags=re.MULTILINE)
    assert match, f"Makefile has no recipe for {target}"
    return match.group(1).replace("$(BIN)", "").replace("$(PORT)", "8000")


APP_SERVICES = ("migrate", "web", "worker", "beat")  # the application image, one command each


def test_compose_runs_every_service_with_a_health_check():
    services = compose()["services"]
    assert set(services) == {"postgres", "redis", "broker", "migrate", "proxy", "web", "worker", "beat"}
    for name, service in services.items():
        if name == "migrate":  # a one-off: it exits when done, and is never restarted
            assert service["restart"] == "no"
            continue
        assert "healthcheck" in service, name
    for name in APP_SERVICES:
        depends = services[name]["depends_on"]
        assert depends["postgres"]["condition"] == "service_healthy"
        assert depends["redis"]["condition"] == "service_healthy"
        assert depends["broker"]["condition"] == "service_healthy"


def test_migrations_and_bundled_data_run_once_before_the_processes_that_scale():
    services = compose()["services"]
    migrate = " ".join(services["migrate"]["command"].split())
    assert "manage.py migrate --noinput" in migrate and "manage.py load_bundled_data" in migrate
    for name in ("web", "worker", "beat"):
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully", name
        command = services[name]["command"]
        assert "migrate" not in command and "load_bundled_data" not in command, name


def test_web_binds_no_host_port_so_it_scales_behind_the_proxy():
    services = compose()["services"]
    web, proxy = services["web"], services["proxy"]
    assert "ports" not in web, "a fixed host port lets only one web replica start"
    assert web["expose"] == ["8000"] and "--bind 0.0.0.0:8000" in web["command"]
    assert len(proxy["ports"]) == 1 and proxy["ports"][0].endswith(":80")
    assert proxy["depends_on"]["web"]["condition"] == "service_healthy"
    # the proxy appends the client's address to X-Forwarded-For: the app trusts exactly that one hop
    assert web["environment"]["TRUSTED_PROXY_HOPS"] == "1"
    for name in ("migrate", "worker", "beat"):
        assert "ports" not in services[name] and "TRUSTED_PROXY_HOPS" not in services[name]["environment"], name


def test_proxy_config_balances_over_the_web_service_by_its_compose_name():
    proxy = compose()["services"]["proxy"]
    source, _, target = proxy["volumes"][0].partition(":")
    assert target.startswith("/etc/nginx/conf.d/default.conf")
    config = (ROOT / source).read_text()
    # looked up again through Docker's DNS, so replicas added by --scale are used without restarting nginx
    assert re.search(r"^resolver 127\.0\.0\.11 valid=\d+s", config, flags=re.MULTILINE)
    assert "set $web_upstream http://web:8000;" in config and "proxy_pass $web_upstream;" in config
    assert "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;" in config
    assert "listen 80 default_server;" in config
    health = proxy["healthcheck"]["test"]
    port = re.search(r"listen 127\.0\.0\.1:(\d+);", config)
    assert port and f"http://127.0.0.1:{port.group(1)}/health" in health


def test_every_app_service_shares_the_same_redis_and_database():
    """No process keeps state of its own: cache, rate limits and locks are in one Redis, the task queue in another."""
    services = compose()["services"]
    environments = [services[name]["environment"] for name in APP_SERVICES]
    assert {env["REDIS_URL"] for env in environments} == {"redis://redis:6379/0"}
    assert {env["BROKER_URL"] for env in environments} == {"redis://broker:6379/0"}
    assert len({env["DATABASE_URL"] for env in environments}) == 1
    assert {env["SECRET_KEY"] for env in environments} == {"${SECRET_KEY:?set SECRET_KEY}"}


def test_only_the_beat_service_schedules_and_it_is_one_replica():
    """Workers scale; a scheduler in each (``worker -B``) would enqueue every periodic refresh once per replica."""
    services = compose()["services"]
    assert services["beat"].get("deploy", {}).get("replicas", 1) == 1
    assert services["beat"]["command"].startswith("celery -A config beat ")
    worker = services["worker"]["command"].split()
    assert "-B" not in worker and "--beat" not in worker


@pytest.mark.parametrize(("service", "target"), [("worker", "worker"), ("beat", "beat"), ("web", "serve-prod")])
def test_compose_commands_are_the_makefile_commands(service, target):
    command = " ".join(compose()["services"][service]["command"].split())
    assert makefile_recipe(target) in command


def test_readme_names_the_compose_commands_and_two_setup_commands():
    readme = (ROOT / "README.md").read_text()
    assert "make run" in readme and "make test" in readme
    for target in ("make worker", "make beat", "make serve-prod", "docker compose up", "--scale web="):
        assert target in readme


def test_ci_script_runs_the_readme_test_command():
    script = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^make test$", script, flags=re.MULTILINE)
    assert "DATABASE_URL=" in script and "REDIS_URL=" in script


def test_docker_compose_accepts_the_file():
    binary = shutil.which("docker-compose")
    if not binary:
        missing_service("docker-compose (Debian package) is not installed")
    result = subprocess.run(
        [binary, "-f", str(COMPOSE), "config", "--quiet"],
        cwd=ROOT,
        env={"SECRET_KEY": "compose-validation-only", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr


def _redis_options(service: str) -> dict[str, str]:
    command = compose()["services"][service]["command"]
    assert command[0] == "redis-server"
    return dict(zip(command[1::2], command[2::2], strict=True))


def test_the_cache_is_bounded_and_evicts_what_was_used_least():
    """A crawler of new page states cannot grow the cache's Redis past its memory: it drops old keys instead."""
    options = _redis_options("redis")
    assert options["--maxmemory"].startswith("${REDIS_CACHE_MAXMEMORY:-")
    assert options["--maxmemory-policy"] == "allkeys-lru"
    assert options["--appendonly"] == "no"


def test_the_broker_never_evicts_and_keeps_its_queue_over_a_restart():
    """Queued tasks are never evicted to make room, and an append-only file on a volume brings them back."""
    broker = compose()["services"]["broker"]
    options = _redis_options("broker")
    assert options["--maxmemory-policy"] == "noeviction"
    assert options["--appendonly"] == "yes" and options["--appendfsync"] == "everysec"
    assert any(volume.endswith(":/data") for volume in broker["volumes"])
    assert "broker-data" in compose()["volumes"]
