"""The estimator (SPEC §6): FLOPs, GPU hours and money from an experiment's params, with every assumption."""

from trainledger.estimate.catalog import Catalog
from trainledger.estimate.model import Assumption, Component, Estimate, PhaseTotal, estimate

__all__ = ["Assumption", "Catalog", "Component", "Estimate", "PhaseTotal", "estimate"]
