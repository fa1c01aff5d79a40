"""Running jobs: the driver, checkpoints, progress, plans of units and the executors
(a local process pool, a Dask cluster)."""
