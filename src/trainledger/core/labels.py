"""The `project-phase-method` label scheme (SPEC §3): tag sets in, canonical attribution keys out."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from trainledger.core.config_labels import LabelsConfig

# GKE cost allocation writes a pod's labels as `k8s-label/<key>`: the pod label is the key.
_PREFIXES = ("resourcetags/", "resource_tags_", "resource_tags.", "tags/", "labels/", "k8s-label/")
_FOLD = re.compile(r"[-:./\s]+")
# A GCP project's labels beside its resources' own (queries/schema/warehouse.sql, gcp_tags_json).
INHERITED = "project-label:"


def canonical_key(key: str) -> str:
    """`resourceTags/user:Cost-Label`, `user_cost_label`, `k8s-label/cost-label` and `cost-label` all
    become `cost_label`."""
    text = key.strip().lower()
    for prefix in _PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix) :]
            break
    for prefix in ("user:", "user_"):
        if text.startswith(prefix):
            text = text[len(prefix) :]
            break
    return _FOLD.sub("_", text).strip("_")


def canonical_value(value: object) -> str:
    return str(value).strip().lower()


@dataclass(frozen=True)
class Resolved:
    """What a tag set says about attribution; parts it cannot tell are None and ``problem`` says why."""

    project: str | None = None
    phase: str | None = None
    method: str | None = None
    experiment_id: str | None = None
    status: str = "untagged"  # ok, partial, untagged, unknown-label, conflict
    problems: tuple[str, ...] = field(default_factory=tuple)

    @property
    def problem(self) -> str | None:
        return "; ".join(self.problems) or None


class LabelScheme:
    """Resolves tag dictionaries with the configured keys, vocabularies and aliases."""

    def __init__(self, config: LabelsConfig) -> None:
        self.project_keys = [canonical_key(k) for k in config.project]
        self.phase_keys = [canonical_key(k) for k in config.phase]
        self.method_keys = [canonical_key(k) for k in config.method]
        self.experiment_keys = [canonical_key(k) for k in config.experiment]
        self.composite_keys = [canonical_key(k) for k in config.composite]
        self.fallback_keys = [canonical_key(k) for k in config.project_fallback]
        self.phases = {canonical_value(p) for p in config.phases}
        self.methods = {canonical_value(m) for m in config.methods}
        self.aliases = {canonical_value(k): canonical_value(v) for k, v in config.aliases.items()}
        self.label_keys = {
            *self.project_keys,
            *self.phase_keys,
            *self.method_keys,
            *self.experiment_keys,
            *self.composite_keys,
        }

    def phase(self, raw: str) -> str | None:
        value = self.aliases.get(canonical_value(raw), canonical_value(raw))
        return value if value in self.phases else None

    def method(self, raw: str) -> str | None:
        value = self.aliases.get(canonical_value(raw), canonical_value(raw))
        return value if value in self.methods else None

    def parse_composite(self, raw: str) -> tuple[str | None, str | None, str | None, list[str]]:
        """Parse `<project>-<phase>-<method>` from the right; the project may contain hyphens."""
        text = canonical_value(raw)
        parts = [part.strip() for part in text.split("-")]
        if len(parts) < 3 or not all(parts):
            return None, None, None, [f"cost label {raw!r} is not <project>-<phase>-<method>"]
        project, phase_raw, method_raw = "-".join(parts[:-2]), parts[-2], parts[-1]
        problems = []
        phase, method = self.phase(phase_raw), self.method(method_raw)
        if phase is None:
            problems.append(f"unknown phase {phase_raw!r} in cost label {raw!r}")
        if method is None:
            problems.append(f"unknown method {method_raw!r} in cost label {raw!r}")
        return project, phase, method, problems

    def _first(self, tags: dict[str, str], keys: list[str]) -> str | None:
        for key in keys:
            value = tags.get(key)
            # GKE's own namespaces (kube:unallocated, kube:system-overhead) name no project or run.
            if (
                value is not None
                and canonical_value(value)
                and not canonical_value(value).startswith("kube:")
            ):
                return value
        return None

    def resolve(self, raw_tags: dict[str, object]) -> Resolved:
        """The key the tags give; inherited labels (a GCP project's) say only what the resource's own
        labels leave unsaid, so a project's `project` label never conflicts with a resource's cost label."""
        inherited = {k[len(INHERITED) :]: v for k, v in raw_tags.items() if k.startswith(INHERITED)}
        if not inherited:
            return self._resolve(raw_tags)
        own = self._resolve({k: v for k, v in raw_tags.items() if not k.startswith(INHERITED)})
        if own.status == "untagged":
            return self._resolve(inherited)
        if own.status != "partial":
            return own
        parent = self._resolve(inherited)
        if parent.status in ("untagged", "conflict"):
            return own
        return self._status(
            own.project or parent.project,
            own.phase or parent.phase,
            own.method or parent.method,
            own.experiment_id or parent.experiment_id,
            tagged=True,
            conflict=False,
            problems=[],
        )

    def _resolve(self, raw_tags: dict[str, object]) -> Resolved:
        tags: dict[str, str] = {}
        problems: list[str] = []
        for key, value in raw_tags.items():
            if isinstance(value, list | dict):  # one label, one text: never "['qwen-coder']"
                if canonical_key(str(key)) in self.label_keys:
                    shown = json.dumps(value, ensure_ascii=False)
                    what = "a list" if isinstance(value, list) else "an object"
                    problems.append(f"tag {key!r} is {what} {shown[:80]}, expected one text value")
            elif value is not None:
                tags[canonical_key(str(key))] = str(value)
        project_raw = self._first(tags, self.project_keys)
        phase_raw = self._first(tags, self.phase_keys)
        method_raw = self._first(tags, self.method_keys)
        experiment_raw = self._first(tags, self.experiment_keys)
        composite_raw = self._first(tags, self.composite_keys)

        project = canonical_value(project_raw) if project_raw else None
        phase = self.phase(phase_raw) if phase_raw else None
        method = self.method(method_raw) if method_raw else None
        if phase_raw and phase is None:
            problems.append(f"unknown phase {phase_raw!r}")
        if method_raw and method is None:
            problems.append(f"unknown method {method_raw!r}")

        conflict = False
        if composite_raw:
            c_project, c_phase, c_method, c_problems = self.parse_composite(composite_raw)
            problems.extend(c_problems)
            merged: list[str | None] = []
            for name, separate, composite in (
                ("project", project, c_project),
                ("phase", phase, c_phase),
                ("method", method, c_method),
            ):
                if separate and composite and separate != composite:
                    problems.append(f"{name} {separate!r} conflicts with cost label {composite_raw!r}")
                    conflict = True
                    merged.append(None)
                else:
                    merged.append(separate or composite)
            project, phase, method = merged

        fallback_raw = None if project or conflict else self._first(tags, self.fallback_keys)
        if fallback_raw:
            project = canonical_value(fallback_raw)
        experiment = canonical_value(experiment_raw) if experiment_raw else None
        tagged = any(
            (project_raw, phase_raw, method_raw, experiment_raw, composite_raw, fallback_raw, problems)
        )
        return self._status(project, phase, method, experiment, tagged, conflict, problems)

    @staticmethod
    def _status(
        project: str | None,
        phase: str | None,
        method: str | None,
        experiment: str | None,
        tagged: bool,
        conflict: bool,
        problems: list[str],
    ) -> Resolved:
        if not tagged:
            status = "untagged"
        elif conflict:
            status = "conflict"
        elif problems:
            status = "unknown-label"
        elif project and phase and method:
            status = "ok"
        else:
            status = "partial"
            missing = [n for n, v in (("project", project), ("phase", phase), ("method", method)) if not v]
            if not experiment:
                problems.append("missing " + ", ".join(missing))
        return Resolved(project, phase, method, experiment, status, tuple(problems))

    def resolve_json(self, tags_json: str) -> Resolved:
        try:
            data = json.loads(tags_json) if tags_json else {}
        except json.JSONDecodeError:
            return Resolved(status="unknown-label", problems=(f"tags are not JSON: {tags_json[:80]!r}",))
        if not isinstance(data, dict):
            return Resolved(status="unknown-label", problems=("tags are not a JSON object",))
        return self.resolve(data)
