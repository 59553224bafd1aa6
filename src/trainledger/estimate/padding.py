"""What a padded batch costs: each sample is padded to the batch's longest, so FLOPs follow the longest.

Only the mean length and the cut are known, so lengths are taken as exponential (the maximum-entropy law
for a positive length with a known mean) and cut at ``max_seq_len`` as the tokenizer truncates, with the
scale chosen so the cut lengths average ``avg_tokens_per_sample``. For lengths X = min(E, L) with E
exponential of scale mu, the longest of n is min(max E, L), and

    E[min(max of n, L)] = integral_0^L (1 - (1 - e^(-x/mu))^n) dx = mu x sum_{k=1..n} u^k / k,  u = 1 - e^(-L/mu)

(substitute u = 1 - e^(-x/mu) and expand (1 - u^n) / (1 - u)). With n = 1 it is the mean itself.
"""

from __future__ import annotations

from decimal import Decimal, localcontext

from trainledger.estimate.result import ARITHMETIC

BISECTIONS = 200


def scale_for_mean(mean: Decimal, cut: Decimal) -> Decimal:
    """The exponential scale mu whose lengths, cut at ``cut``, average ``mean`` (mean < cut)."""
    with localcontext(ARITHMETIC):

        def cut_mean(mu: Decimal) -> Decimal:
            return mu * (1 - (-cut / mu).exp())

        low, high = mean, mean * 2
        while cut_mean(high) < mean:
            low, high = high, high * 2
        for _ in range(BISECTIONS):
            middle = (low + high) / 2
            if cut_mean(middle) < mean:
                low = middle
            else:
                high = middle
        return (low + high) / 2


def expected_longest(mean: Decimal, cut: Decimal, samples: int) -> Decimal:
    """The expected longest of ``samples`` lengths averaging ``mean``, none above ``cut``."""
    if mean >= cut:
        return cut
    mu = scale_for_mean(mean, cut)
    with localcontext(ARITHMETIC):
        u = 1 - (-cut / mu).exp()
        return mu * sum((u**k / k for k in range(1, samples + 1)), Decimal(0))
