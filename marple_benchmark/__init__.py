"""``marple benchmark``: from nothing to a scored whodunit benchmark with one command.

An application above the libraries: it uses ``marple_gym`` (data),
``marple_agents`` (agent models, simulation inference) and ``marple_eval``
(protocol, metrics, reports), and none of them imports it.

* :mod:`marple_benchmark.presets`: the sizes of a run (``small``, ``paper``);
* :mod:`marple_benchmark.config`: one run's configuration, from the command's options;
* :mod:`marple_benchmark.pipeline`: the stages (data, models, inference), each resuming;
* :mod:`marple_benchmark.summary`: ``summary.md``, ``benchmark.json`` and the figure;
* :mod:`marple_benchmark.cli`: the command.
"""

from marple_benchmark.config import BenchmarkConfig
from marple_benchmark.pipeline import run_benchmark
from marple_benchmark.presets import PRESETS, BenchmarkPreset

__all__ = ["PRESETS", "BenchmarkConfig", "BenchmarkPreset", "run_benchmark"]
