# Solitaire Arena race server. Build: docker build -t solitaire-arena .
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1

WORKDIR /app
COPY pyproject.toml ./
COPY shared ./shared
COPY server ./server
COPY client ./client
RUN touch README.md && pip install .

RUN useradd --system --uid 10001 arena && mkdir -p /data /archive && chown arena /data /archive
USER arena

ENV SA_HOST=0.0.0.0 \
    SA_PORT=8765 \
    SA_DATA_DIR=/data
EXPOSE 8765
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
    CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=2).status != 200)"
STOPSIGNAL SIGTERM
ENTRYPOINT ["solitaire-arena"]
CMD ["serve"]
