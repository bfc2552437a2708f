"""``marple benchmark``: from nothing to a scored whodunit benchmark with one command.

An application above the libraries: it uses ``marple_gym`` (data),
``marple_agents`` (agent models, simulation inference) and ``marple_eval``
(protocol, metrics, reports), and none of them imports it.

* :mod:`marple.benchmark.presets`: the sizes of a run (``small``, ``paper``);
* :mod:`marple.benchmark.config`: one run's configuration, from the command's options;
* :mod:`marple.benchmark.pipeline`: the stages (data, models, inference), each resuming;
* :mod:`marple.benchmark.summary`: ``summary.md``, ``benchmark.json`` and the figure;
* :mod:`marple.cli.benchmark`: the command.
"""

from marple.benchmark.config import BenchmarkConfig
from marple.benchmark.pipeline import run_benchmark
from marple.benchmark.presets import PRESETS, BenchmarkPreset

__all__ = ["PRESETS", "BenchmarkConfig", "BenchmarkPreset", "run_benchmark"]
