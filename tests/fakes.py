"""Local stand-ins for remote services, over real HTTP on 127.0.0.1: cloud metadata servers, a webhook
receiver, moto's S3 and the GCS emulator. Each records what it was asked, for the tests to check."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Seen:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: bytes = b""


@dataclass
class Server:
    url: str
    requests: list[Seen] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)


Responder = Callable[[Seen, Server], tuple[int, dict[str, str], bytes] | None]


@contextmanager
def http_server(respond: Responder) -> Iterator[Server]:
    """Serve ``respond(request, server) -> (status, headers, body)`` on a free loopback port.

    ``respond`` returning None hangs the request until the test ends (``server.release``)."""
    state: dict[str, Server] = {}

    class Handler(BaseHTTPRequestHandler):
        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            headers = {
                k.lower(): v for k, v in self.headers.items()
            }  # HTTP header names are case-insensitive
            seen = Seen(self.command, self.path, headers, self.rfile.read(length))
            server = state["server"]
            server.requests.append(seen)
            answer = respond(seen, server)
            if answer is None:
                server.release.wait(30)
                return
            status, headers, body = answer
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_PUT = do_POST = _handle

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    server = Server(f"http://127.0.0.1:{httpd.server_address[1]}")
    state["server"] = server
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        httpd.shutdown()
        httpd.server_close()


def ec2_imds(instance_id: str) -> Responder:
    """EC2 IMDSv2: PUT /latest/api/token with a TTL header gives a token; metadata GETs need it (401 without)."""
    token = "AQAEAFake-token=="

    def respond(seen: Seen, server: Server) -> tuple[int, dict[str, str], bytes]:
        if seen.method == "PUT" and seen.path == "/latest/api/token":
            if "x-aws-ec2-metadata-token-ttl-seconds" not in seen.headers:
                return 400, {}, b""
            return 200, {"Content-Type": "text/plain"}, token.encode()
        if seen.headers.get("x-aws-ec2-metadata-token") != token:
            return 401, {}, b""
        if seen.method == "GET" and seen.path == "/latest/meta-data/instance-id":
            return 200, {"Content-Type": "text/plain"}, instance_id.encode()
        return 404, {}, b""

    return respond


def gce_metadata(name: str, numeric_id: str) -> Responder:
    """GCE metadata server: answers only with ``Metadata-Flavor: Google``, and says so in its reply."""

    def respond(seen: Seen, server: Server) -> tuple[int, dict[str, str], bytes]:
        if seen.headers.get("metadata-flavor") != "Google":
            return 403, {}, b""
        values = {"/computeMetadata/v1/instance/name": name, "/computeMetadata/v1/instance/id": numeric_id}
        if seen.path in values:
            return (
                200,
                {"Metadata-Flavor": "Google", "Content-Type": "application/text"},
                values[seen.path].encode(),
            )
        return 404, {"Metadata-Flavor": "Google"}, b""

    return respond


def hangs(seen: Seen, server: Server) -> None:
    """A server that accepts the connection and never answers."""
    return None


def webhook(statuses: list[int] | None = None) -> Responder:
    """A Slack-like incoming webhook: answers the listed statuses in turn, then 200 ``ok``."""
    queue = list(statuses or [])

    def respond(seen: Seen, server: Server) -> tuple[int, dict[str, str], bytes] | None:
        status = queue.pop(0) if queue else 200
        if status == 0:
            return None
        return status, {"Content-Type": "text/plain"}, b"ok" if status == 200 else b"error"

    return respond


def posted_json(server: Server) -> list[dict[str, Any]]:
    return [json.loads(r.body) for r in server.requests if r.method == "POST"]


@contextmanager
def moto_s3(monkeypatch: Any, *buckets: str) -> Iterator[str]:
    """moto in server mode, with boto3 pointed at it through the standard environment variables."""
    import boto3
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    for key, value in {
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    s3 = boto3.client("s3")
    for bucket in buckets:
        s3.create_bucket(Bucket=bucket)
    try:
        yield endpoint
    finally:
        server.stop()


@contextmanager
def gcs_emulator(monkeypatch: Any, *buckets: str) -> Iterator[str]:
    """gcp-storage-emulator in memory; google-cloud-storage finds it through STORAGE_EMULATOR_HOST."""
    from gcp_storage_emulator.server import create_server
    from google.cloud import storage

    server = create_server("127.0.0.1", 0, in_memory=True)
    server.start()
    host = f"http://127.0.0.1:{server._api._httpd.server_address[1]}"
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", host)
    client = storage.Client(project="test-project")
    for bucket in buckets:
        client.create_bucket(bucket)
    try:
        yield host
    finally:
        server.stop()


def fake_nvidia_smi(folder: os.PathLike[str], gpus: int) -> str:
    """An ``nvidia-smi`` on PATH that lists ``gpus`` H100s, as ``nvidia-smi -L`` prints them."""
    path = os.path.join(folder, "nvidia-smi")
    lines = "\n".join(
        f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: GPU-{i:08d}-0000-0000-0000-000000000000)" for i in range(gpus)
    )
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(f'#!/bin/sh\n[ "$1" = "-L" ] || exit 2\ncat <<EOF\n{lines}\nEOF\n')
    os.chmod(path, 0o755)
    return path
