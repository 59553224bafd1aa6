"""The estimator (SPEC §6): FLOPs, GPU hours and money from an experiment's params, with every assumption.

The functions live in the modules (``model.estimate``, ``gpu_list_prices.GpuListPrices``): importing the package loads
nothing, so `trainledger --help` does not pay for the config model.
"""
