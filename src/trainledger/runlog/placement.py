"""Where the job runs: the machine as the bill names it (EC2 instance id, GCE instance) and its GPU count.

Every probe is optional and bounded: they run at once in daemon threads under one shared deadline.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trainledger.runlog.warning import warn

if TYPE_CHECKING:  # urllib's HTTP stack loads when a probe runs, not with every command's start-up
    import urllib.request
    from email.message import Message

log = logging.getLogger(__name__)

DEFAULT_METADATA_TIMEOUT_S = 1.0
DEFAULT_METADATA_RETRIES = 2
RETRIED = (429, 500, 502, 503, 504)
LINK_LOCAL_METADATA = "http://169.254.169.254"
PROBES = ("aws", "gcp", "gpus")


@dataclass
class Placement:
    """The machine a job runs on, as the bill names it."""

    provider: str | None = None
    resource_id: str | None = None
    gpus: int | None = None
    instance_id: str | None = None  # GCE numeric id, when the resource id is the instance name

    def resource(self) -> dict[str, Any] | None:
        if not self.resource_id:
            return None
        entry: dict[str, Any] = {"provider": self.provider, "resource_id": self.resource_id}
        if self.gpus is not None:
            entry["gpus"] = self.gpus
        if self.instance_id:
            entry["instance_id"] = self.instance_id
        return {k: v for k, v in entry.items() if v is not None}


def _no_proxy_open(request: urllib.request.Request, timeout: float) -> tuple[bytes, Message]:
    """Metadata endpoints are link-local: never route them through an HTTP(S)_PROXY.

    A busy metadata server (IMDS throttles with 429, a GCE one restarting answers 503) or a refused
    connection is retried ``TRAINLEDGER_METADATA_RETRIES`` times (default 2) with backoff, every attempt
    inside the ``timeout`` the call was given."""
    import urllib.error
    import urllib.request

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + timeout

    def attempt() -> tuple[bytes, Message]:
        left = deadline - time.monotonic()
        if left <= 0:  # no new request once the time is up: a hanging server sees one per probe
            raise TimeoutError(f"no answer from {request.full_url} within {timeout:g} s")
        with opener.open(request, timeout=left) as response:
            return response.read(), response.headers

    retries = max(0, int(env_float("TRAINLEDGER_METADATA_RETRIES", DEFAULT_METADATA_RETRIES)))
    for backoff in range(retries):
        try:
            return attempt()
        except urllib.error.HTTPError as exc:
            if exc.code not in RETRIED:
                raise
        except (urllib.error.URLError, TimeoutError, ConnectionError):
            pass
        time.sleep(min(0.05 * 2**backoff, max(0.0, deadline - time.monotonic())))
    return attempt()


def _imds_endpoint() -> str:
    return (
        os.environ.get("TRAINLEDGER_IMDS_ENDPOINT")
        or os.environ.get("AWS_EC2_METADATA_SERVICE_ENDPOINT")
        or LINK_LOCAL_METADATA
    ).rstrip("/")


def _gce_endpoint() -> str:
    host = os.environ.get("GCE_METADATA_HOST")
    return (
        os.environ.get("TRAINLEDGER_GCE_METADATA_ENDPOINT")
        or (f"http://{host}" if host else LINK_LOCAL_METADATA)
    ).rstrip("/")


def ec2_instance_id(timeout_s: float) -> str | None:
    """The EC2 instance id through IMDSv2: a session token by PUT, then the id with that token."""
    if os.environ.get("AWS_EC2_METADATA_DISABLED", "").lower() == "true":
        return None
    import urllib.request

    base = _imds_endpoint()
    token_request = urllib.request.Request(
        f"{base}/latest/api/token", method="PUT", headers={"X-aws-ec2-metadata-token-ttl-seconds": "60"}
    )
    token, _ = _no_proxy_open(token_request, timeout_s)
    id_request = urllib.request.Request(
        f"{base}/latest/meta-data/instance-id", headers={"X-aws-ec2-metadata-token": token.decode()}
    )
    body, _ = _no_proxy_open(id_request, timeout_s)
    instance_id = body.decode().strip()
    return instance_id if re.fullmatch(r"i-[0-9a-f]{8,17}", instance_id) else None


def gce_instance(timeout_s: float) -> tuple[str, str] | None:
    """(name, numeric id) of the GCE instance from the metadata server (``Metadata-Flavor: Google``)."""
    import urllib.request

    base = _gce_endpoint()
    values = []
    for item in ("name", "id"):
        request = urllib.request.Request(
            f"{base}/computeMetadata/v1/instance/{item}", headers={"Metadata-Flavor": "Google"}
        )
        body, headers = _no_proxy_open(request, timeout_s)
        if headers.get("Metadata-Flavor") != "Google":
            return None  # something answered, but not a GCE metadata server
        values.append(body.decode().strip())
    name, numeric_id = values
    return (name, numeric_id) if name else None


def gpu_count(timeout_s: float) -> int | None:
    """GPUs this job can use: ``CUDA_VISIBLE_DEVICES`` when set, else ``nvidia-smi -L``; None when unknown."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        devices = [d for d in visible.split(",") if d.strip()]
        return 0 if not devices or devices[0].strip() in ("-1", "NoDevFiles") else len(devices)
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None
    out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=timeout_s, check=True).stdout
    return sum(1 for line in out.splitlines() if line.startswith("GPU "))


def _enabled_probes() -> set[str]:
    value = os.environ.get("TRAINLEDGER_DETECT")
    if value is None:
        return set(PROBES)
    return {p.strip().lower() for p in value.split(",")} & set(PROBES)


def env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        warn(f"trainledger: {name}={os.environ[name]!r} is not a number; using {default}")
        return default


def detect(
    timeout_s: float | None = None,
    *,
    resource_id: str | None = None,
    provider: str | None = None,
    gpus: int | None = None,
) -> Placement:
    """Where this process runs; explicit values (then environment) win, probes fill the rest.

    All probes run at once and share one deadline of ``timeout_s``: a metadata server that hangs costs
    at most that long, and its answer, if it comes later, is ignored."""
    timeout = timeout_s if timeout_s is not None else env_float("TRAINLEDGER_METADATA_TIMEOUT_S", 1.0)
    resource_id = resource_id or os.environ.get("TRAINLEDGER_RESOURCE_ID") or None
    provider = provider or os.environ.get("TRAINLEDGER_PROVIDER") or None
    if gpus is None and os.environ.get("TRAINLEDGER_GPUS"):
        try:
            gpus = int(os.environ["TRAINLEDGER_GPUS"])
        except ValueError:
            warn(f"trainledger: TRAINLEDGER_GPUS={os.environ['TRAINLEDGER_GPUS']!r} is not a whole number")
    wanted = _enabled_probes()
    if resource_id:
        wanted -= {"aws", "gcp"}
    if gpus is not None:
        wanted.discard("gpus")
    probes: dict[str, Callable[[float], Any]] = {
        "aws": ec2_instance_id,
        "gcp": gce_instance,
        "gpus": gpu_count,
    }
    results = _run_with_deadline({name: probes[name] for name in PROBES if name in wanted}, timeout)
    placement = Placement(provider, resource_id, gpus)
    if not placement.resource_id and results.get("aws"):
        placement.provider, placement.resource_id = "aws", results["aws"]
    elif not placement.resource_id and results.get("gcp"):
        name, numeric_id = results["gcp"]
        placement.provider, placement.resource_id, placement.instance_id = "gcp", name, numeric_id
    if placement.gpus is None:
        placement.gpus = results.get("gpus")
    return placement


def _run_with_deadline(calls: dict[str, Callable[[float], Any]], timeout_s: float) -> dict[str, Any]:
    """TrainingRun each call in a daemon thread; collect what finished by the deadline."""
    results: dict[str, Any] = {}

    def target(name: str, call: Callable[[float], Any]) -> None:
        try:
            results[name] = call(timeout_s)
        except Exception as exc:  # a probe that fails just found nothing
            log.debug("trainledger: %s probe found nothing: %s", name, exc)

    deadline = time.monotonic() + timeout_s
    threads = [
        threading.Thread(target=target, args=(name, call), name=f"trainledger-probe-{name}", daemon=True)
        for name, call in calls.items()
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    return {name: results[name] for name in calls if name in results}
