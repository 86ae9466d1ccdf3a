FROM python:3.11-slim
WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 LITELLM_LOCAL_MODEL_COST_MAP=True
COPY pyproject.toml README.md ./
COPY digest ./digest
COPY worker ./worker
COPY prompts ./prompts
COPY migrations ./migrations
COPY examples ./examples
# The extras the image installs (pyproject.toml): the worker (Celery, litellm, the local
# embedding model, the command line for `digest db upgrade`) and the HTTP service (with the
# review page's report). An image for agents alone: --build-arg EXTRAS= (the base install).
ARG EXTRAS=worker,service
RUN pip install --no-cache-dir ".[${EXTRAS}]"
# `celery -A worker` imports the worker package from the working directory or site-packages.
RUN useradd --create-home digest
USER digest
CMD ["celery", "-A", "worker", "worker", "--loglevel=INFO"]
