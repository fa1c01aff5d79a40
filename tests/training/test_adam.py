"""The training package's Adam update (training/adam.py), by hand."""

from __future__ import annotations

import numpy as np

from tavli_fast.training.adam import Adam


def test_the_first_step_moves_each_weight_by_the_rate_against_its_gradient_sign():
    # Step 1: m_hat = g and v_hat = g^2 exactly, so the step is rate * g / (|g| + eps).
    params = [np.array([1.0, -2.0, 0.5]), np.array([[3.0]])]
    grads = [np.array([0.3, -4.0, 0.0]), np.array([[-1e-3]])]
    Adam(params).update(params, grads, 0.01)
    assert np.allclose(params[0], [1.0 - 0.01, -2.0 + 0.01, 0.5], rtol=0, atol=1e-9)
    assert np.allclose(params[1], [[3.0 + 0.01]], rtol=0, atol=1e-7)


def test_a_constant_gradient_keeps_steps_of_the_rate():
    # With the same gradient every step, the bias-corrected moments stay g and g^2.
    params = [np.zeros(2)]
    adam = Adam(params)
    for _ in range(5):
        adam.update(params, [np.array([2.0, -0.5])], 0.1)
    assert adam.step == 5
    assert np.allclose(params[0], [-0.5, 0.5], rtol=0, atol=1e-7)   # eps: 1e-8 of |g| a step
