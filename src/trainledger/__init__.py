"""trainledger: what each LLM post-training experiment really cost, reconciled against the cloud bill."""

__version__ = "0.1.0"
