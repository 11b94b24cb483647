"""`python -m editblocks`: the same command line as the `editblocks` script, for when the script is not on PATH."""

from editblocks.cli import main

if __name__ == "__main__":
    main(prog_name="editblocks")
