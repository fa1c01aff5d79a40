"""Adam's update for the small numpy fits of the training package (the pruning net, the
Plakoto / Fevga readout refits): one place for the optimiser both use."""

from __future__ import annotations

import numpy as np


class Adam:
    """Adam (Kingma and Ba, 2015) over a list of float64 arrays, updated in place: the first
    and second moments of each array's gradient, bias-corrected by the step count."""

    def __init__(self, params: list[np.ndarray], beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8) -> None:
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.m = [np.zeros_like(a) for a in params]
        self.v = [np.zeros_like(a) for a in params]
        self.step = 0

    def update(self, params: list[np.ndarray], grads: list[np.ndarray], rate: float) -> None:
        """One step of size `rate` down `grads` (one gradient per array of `params`)."""
        self.step += 1
        b1, b2 = self.beta1, self.beta2
        for k, g in enumerate(grads):
            self.m[k] = b1 * self.m[k] + (1 - b1) * g
            self.v[k] = b2 * self.v[k] + (1 - b2) * g * g
            m_hat = self.m[k] / (1 - b1 ** self.step)
            v_hat = self.v[k] / (1 - b2 ** self.step)
            params[k] -= rate * m_hat / (np.sqrt(v_hat) + self.eps)
