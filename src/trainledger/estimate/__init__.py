"""The estimator (SPEC §6): FLOPs, GPU hours and money from an experiment's params, with every assumption."""

from trainledger.estimate.catalog import Catalog
from trainledger.estimate.model import METHODS, estimate
from trainledger.estimate.result import Assumption, Component, Estimate, PhaseTotal

__all__ = ["METHODS", "Assumption", "Catalog", "Component", "Estimate", "PhaseTotal", "estimate"]
