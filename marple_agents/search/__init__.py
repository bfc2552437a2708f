"""Batched PUCT tree search over copies of the true world, a learned policy as the prior and a mission's progress
as the reward: the search behind the MCTS agent model (our extension; see
:class:`marple_agents.simulation.MCTSAgent`)."""

from marple_agents.search.missions import MissionSearch
from marple_agents.search.puct import PuctSettings, Tree, run_search, visit_policy

__all__ = ["MissionSearch", "PuctSettings", "Tree", "run_search", "visit_policy"]
