"""``marple benchmark``: from nothing to a scored whodunit benchmark with one command.

An application above the libraries: it uses ``marple_gym`` (data),
``marple_agents`` (agent models, simulation inference) and ``marple_eval``
(protocol, metrics, reports), and none of them imports it.

* :mod:`marple.benchmark.presets`: the sizes of a run (``small``, ``paper``);
* :mod:`marple.benchmark.config`: one run's configuration, from the command's options;
* :mod:`marple.benchmark.pipeline`: the stages (data, models, inference), each resuming;
* :mod:`marple.benchmark.summary`: ``summary.md``, ``benchmark.json`` and the figure;
* :mod:`marple.benchmark.executors`: one job per GPU of this machine, or a Ray cluster;
* :mod:`marple.benchmark.measured`: measured-figure files (``bench/gpu_check.py``), and
  :mod:`marple.benchmark.estimate`: the presets' projections from them;
* :mod:`marple.benchmark.slices`: the in-distribution benchmark one agent model at a time,
  :mod:`marple.benchmark.merge`: the slices into the benchmark's results files, and
  :mod:`marple.benchmark.ledger`: the slices that have landed and Table 2 from them;
* :mod:`marple.cli.benchmark`, :mod:`marple.cli.slices`: the commands.
"""

from marple.benchmark.config import BenchmarkConfig
from marple.benchmark.pipeline import run_benchmark
from marple.benchmark.presets import PRESETS, BenchmarkPreset

__all__ = ["PRESETS", "BenchmarkConfig", "BenchmarkPreset", "run_benchmark"]
