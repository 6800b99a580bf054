FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PYTHONPATH=/app STATIC_MANIFEST=1
WORKDIR /app
COPY . .
# Editable install: the code, templates and bundled data are served from /app itself.
RUN pip install --no-cache-dir -e . \
    && SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
