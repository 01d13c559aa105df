import os

import pytest

from slurm_cluster import ClusterUnavailable, SlurmCluster


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory):
    """A one-node Slurm cluster on localhost for the session. Where Slurm cannot be started the
    tests that need it are skipped, loudly, except in CI, where that is a failure to fix."""
    cluster = SlurmCluster(tmp_path_factory.mktemp("slurm"))
    try:
        cluster.start()
    except ClusterUnavailable as e:
        cluster.stop()
        message = f"SLURM TESTS NOT RUN: a one-node Slurm cluster could not be started: {e}"
        if os.environ.get("CI"):
            pytest.fail(message + " (in CI this must work)", pytrace=False)
        pytest.skip(message)
    yield cluster
    cluster.stop()
