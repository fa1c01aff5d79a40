# Bear-off databases (issue 4): kernels written by the bear-off helper.
