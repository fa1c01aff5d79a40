# Neural evaluator (issue 5): kernels written by the neural-net helper.
