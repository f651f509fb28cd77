"""Fixtures shared by the test files: a throwaway PostgreSQL cluster (the migration's and the
registry store's tests)."""

import pytest


@pytest.fixture(scope="session")
def postgres_url(tmp_path_factory):
    """A throwaway PostgreSQL cluster on a Unix socket (Debian's postgresql package, installed
    by scripts/setup.sh); the test fails, never skips, when it cannot start."""
    import glob
    import os
    import subprocess

    bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    assert bins, "PostgreSQL is not installed (scripts/setup.sh installs it)"
    bindir = os.path.dirname(bins[-1])
    root = os.geteuid() == 0
    as_pg = ["runuser", "-u", "postgres", "--"] if root else []
    base = tmp_path_factory.mktemp("pg")
    if root:
        subprocess.run(["chown", "-R", "postgres:postgres", str(base)], check=True)
        os.chmod(base.parent, 0o755)
        os.chmod(base.parent.parent, 0o755)
    data = base / "data"
    port = str(20000 + (os.getpid() + 7) % 20000)
    subprocess.run(as_pg + [f"{bindir}/initdb", "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"],
                   check=True, capture_output=True, cwd="/")
    subprocess.run(as_pg + [f"{bindir}/pg_ctl", "-D", str(data), "-o", f"-k {base} -h '' -p {port} -F",
                            "-l", str(base / "log"), "-w", "start"], check=True, capture_output=True, cwd="/")
    yield f"postgresql://postgres@localhost/postgres?host={base}&port={port}", (base, port)
    subprocess.run(as_pg + [f"{bindir}/pg_ctl", "-D", str(data), "-m", "immediate", "stop"], capture_output=True, cwd="/")
