"""The site as a reader gets it, on the bundled data: a fresh SQLite file, `load_bundled_data`, gunicorn on loopback.

Shared by the layout tests and the scripts in bench/ (screenshots, Lighthouse). It runs in its own processes with
its own database, so the pages under test hold the whole catalog without loading it into the test database per
test, and DEBUG is off, so 404 pages are the ones readers see.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from tests.support import stop_process, wait_for

ROOT = Path(__file__).resolve().parent.parent.parent

# The default page types, one path each with {lang} for the language prefix, and the status each must answer.
PAGE_TYPES: dict[str, tuple[str, int]] = {
    "home": ("/{lang}/", 200),
    "catalog": ("/{lang}/models/", 200),
    "model-moe": ("/{lang}/models/zai-org/GLM-5.3-Flash/", 200),
    "model-dense": ("/{lang}/models/meta-llama/Llama-3.1-8B-Instruct/", 200),
    "methodology": ("/{lang}/methodology/", 200),
    "validation": ("/{lang}/validation/", 200),
    "validation-kind": ("/{lang}/validation/load_tpot_median_ms/", 200),
    "model-faq": ("/{lang}/models/zai-org/GLM-5.3-Flash/faq/", 200),
    "can-it-run": ("/{lang}/models/openai/gpt-oss-120b/runs-on/mac-128/", 200),
    "gpu-index": ("/{lang}/gpus/", 200),
    "gpu": ("/{lang}/gpus/h200-sxm/", 200),
    "providers": ("/{lang}/providers/", 200),
    "provider": ("/{lang}/providers/runpod/", 200),
    "compare": (
        "/{lang}/compare/?models=zai-org/GLM-5.3-Flash,meta-llama/Llama-3.1-8B-Instruct,Qwen/Qwen3-30B-A3B",
        200,
    ),
    "import-status": ("/{lang}/models/import/zai-org/GLM-5.3-Flash/", 200),
    "plan": ("/{lang}/plan/?model=zai-org/GLM-5.3-Flash&out=10B&cached=50", 200),
    "api-docs": ("/api/v1/docs", 200),
    "unknown-model": ("/{lang}/models/acme-labs/Imaginary-7B/", 404),
    "not-found": ("/{lang}/no-such-page/", 404),
}
LANGUAGES = ("en", "de")
WIDTHS = (375, 1280)
COLOR_SCHEMES: tuple[Literal["light", "dark"], ...] = ("light", "dark")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _site_env(database: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in {"DATABASE_URL", "REDIS_URL", "HTTPS"}}
    env.update(
        DATABASE_URL=f"sqlite:///{database}",
        DEBUG="0",
        # as production: the served app refuses to start on the committed development key with DEBUG off
        SECRET_KEY=secrets.token_urlsafe(50),
        # Source static files through whitenoise's finders, whatever a local collectstatic left behind.
        STATIC_MANIFEST="0",
        DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONPATH=str(ROOT),
    )
    return env


def _manage(env: dict[str, str], *args: str) -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    if result.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


@contextmanager
def serve_bundled_site(*, workers: int = 2, startup_timeout_s: float = 60) -> Iterator[str]:
    """Yields the base URL (http://127.0.0.1:PORT) of the site running on the bundled catalog and price snapshot."""
    with tempfile.TemporaryDirectory(prefix="gpufit-site-") as folder:
        env = _site_env(Path(folder) / "site.sqlite3")
        _manage(env, "migrate", "--noinput")
        _manage(env, "load_bundled_data")
        port = free_port()
        log_path = Path(folder) / "gunicorn.log"
        with log_path.open("w") as log:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "config.wsgi:application",
                    f"--bind=127.0.0.1:{port}",
                    f"--workers={workers}",
                    "--threads=4",
                    "--log-level=warning",
                ],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        base_url = f"http://127.0.0.1:{port}"
        try:
            up = wait_for(lambda: process.poll() is not None or _answers(f"{base_url}/robots.txt"), startup_timeout_s)
            if not up or process.poll() is not None:
                raise RuntimeError(f"the site did not come up on {base_url}:\n{log_path.read_text()[-4000:]}")
            yield base_url
        finally:
            stop_process(process)
