FROM python:3.11-slim
WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 LITELLM_LOCAL_MODEL_COST_MAP=True
COPY pyproject.toml README.md ./
COPY digest ./digest
COPY worker ./worker
COPY prompts ./prompts
COPY migrations ./migrations
COPY examples ./examples
RUN pip install --no-cache-dir .
# `celery -A worker` imports the worker package from the working directory or site-packages.
RUN useradd --create-home digest
USER digest
CMD ["celery", "-A", "worker", "worker", "--loglevel=INFO"]
