from datetime import UTC, datetime

from celery import shared_task


@shared_task(name="config.tasks.health_ping")
def health_ping() -> dict:
    """Proves the worker path end to end: the broker delivered it, a worker ran it, the result came back."""
    return {"pong": True, "at": datetime.now(UTC).isoformat()}
