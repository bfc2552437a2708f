"""Policy networks: a ViT over the vision array, vision-only and language-conditioned heads."""

from marple_agents.networks.encoder import GridEncoder, count_parameters
from marple_agents.networks.policies import (
    SUBGOAL_FIELDS,
    SUBGOAL_SIZES,
    LanguagePolicyNet,
    PolicyNet,
    VisionPolicyNet,
    build_model,
)

__all__ = [
    "SUBGOAL_FIELDS",
    "SUBGOAL_SIZES",
    "GridEncoder",
    "LanguagePolicyNet",
    "PolicyNet",
    "VisionPolicyNet",
    "build_model",
    "count_parameters",
]
