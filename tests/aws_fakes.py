"""moto as a real HTTP server (ThreadedMotoServer), shared by the session, and helpers to fill its S3.

Each test gets its own bucket names, so tests never see each other's objects. Credentials are fake and
the real ~/.aws is hidden, so no test can reach a real account.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3
import pytest
import requests

_BUCKETS = itertools.count(1)


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@dataclass
class FakeAws:
    """The moto endpoint with clients to arrange a test, and a counter of GetObject calls."""

    endpoint: str
    get_objects: list[str] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)  # "ec2.DescribeInstances", ... made by any client

    def client(self, service: str, region: str = "us-east-1") -> Any:
        return boto3.client(service, endpoint_url=self.endpoint, region_name=region)

    @property
    def s3(self) -> Any:
        return self.client("s3")

    def bucket(self, stem: str = "billing") -> str:
        name = f"{stem}-{next(_BUCKETS)}"
        self.s3.create_bucket(Bucket=name)
        return name

    def upload(self, bucket: str, folder: Path, prefix: str = "") -> int:
        """Put every file under ``folder`` at ``prefix + <relative path>``; returns how many."""
        s3 = self.s3
        files = [p for p in sorted(folder.rglob("*")) if p.is_file()]

        def put(path: Path) -> None:
            s3.put_object(
                Bucket=bucket, Key=prefix + path.relative_to(folder).as_posix(), Body=path.read_bytes()
            )

        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(put, files))
        return len(files)

    def require_auth(self, enabled: bool) -> None:
        """Make moto check IAM policies on every request (or stop checking)."""
        requests.post(f"{self.endpoint}/moto-api/reset-auth", data=b"0" if enabled else b"inf", timeout=10)


@pytest.fixture
def fake_aws(moto_endpoint: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> FakeAws:
    """Fake credentials pointing boto3 at moto; every call any client makes is recorded."""
    for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_ROLE_ARN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    fake = FakeAws(moto_endpoint)
    original = boto3.session.Session.client

    def counting_client(self: boto3.session.Session, *args: Any, **kwargs: Any) -> Any:
        client = original(self, *args, **kwargs)
        client.meta.events.register(
            "before-parameter-build.s3.GetObject", lambda params, **_: fake.get_objects.append(params["Key"])
        )
        client.meta.events.register(
            "before-parameter-build",
            lambda event_name, **_: fake.calls.append(".".join(event_name.split(".")[1:])),
        )
        return client

    monkeypatch.setattr(boto3.session.Session, "client", counting_client)
    return fake
