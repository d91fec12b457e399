# sitecustomize.py - the start-up module of sr-mcp's Python runner, bound
# read-only at /run/sr/python and first on PYTHONPATH, so that Python
# imports it before the program (see sr-mcp(1), IMAGES).
#
# A program that draws with matplotlib and ends with figures still open
# has them saved as PNG into /workspace/outputs (figure-N.png), where
# sr-mcp finds them and returns them with the run's result as images.
# Nothing of matplotlib is imported here: a finder waits for the program
# to import matplotlib.pyplot itself, and only then is the exit hook set
# (after pyplot's own, which closes every figure: atexit runs the last
# registered first). A program that never plots pays for reading this
# file and nothing else. A figure the program saved itself (savefig) is
# not saved again.
#
# This module shadows Debian's sitecustomize, which only installs
# Ubuntu's apport hook when apport is there.
import sys

OUTPUTS = "/workspace/outputs"


def _save_open_figures(plt):
    try:
        nums = plt.get_fignums()
        todo = [n for n in nums if not getattr(plt.figure(n), "_sr_saved", False)]
        if not todo:
            return
        import os
        os.makedirs(OUTPUTS, exist_ok=True)
        for n in todo:
            plt.figure(n).savefig(f"{OUTPUTS}/figure-{n}.png")
    except Exception as e:  # the program's own output and status stand
        print(f"sr-mcp: the open matplotlib figures were not saved: {e!r}", file=sys.stderr)


def _pyplot_loaded(plt):
    import atexit
    import functools
    from matplotlib.figure import Figure

    save = Figure.savefig

    @functools.wraps(save)
    def savefig(self, *args, **kwargs):
        r = save(self, *args, **kwargs)
        self._sr_saved = True
        return r

    Figure.savefig = savefig
    atexit.register(_save_open_figures, plt)
    # plt.show() has no window to open here: the figures it would show
    # are returned at exit, so newer matplotlib's warning is not news.
    import warnings
    warnings.filterwarnings("ignore", message="FigureCanvasAgg is non-interactive")


class _PyplotWatch:
    """A meta path finder that finds nothing itself: when
    matplotlib.pyplot is looked for, it leaves sys.meta_path, lets the
    other finders find it, and has _pyplot_loaded run once pyplot has
    run."""

    def find_spec(self, name, path=None, target=None):
        if name != "matplotlib.pyplot":
            return None
        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find else None
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        run = getattr(loader, "exec_module", None)
        if run is None:
            return spec

        def exec_module(module):
            run(module)
            try:
                _pyplot_loaded(module)
            except Exception as e:
                print(f"sr-mcp: open figures will not be saved: {e!r}", file=sys.stderr)

        try:
            loader.exec_module = exec_module
        except AttributeError:
            pass
        return spec


sys.meta_path.insert(0, _PyplotWatch())
