"""The Celery app: broker and result backend from BROKER_URL, else REDIS_URL (see settings), tasks discovered in the
apps."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("gpufit")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
app.conf.imports = ("config.tasks",)
