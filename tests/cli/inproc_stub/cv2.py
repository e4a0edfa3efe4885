"""A stand-in for OpenCV's thread setting (tests/cli/test_inproc.py): python3-opencv is not a
test dependency; gpuwatch only calls getNumThreads()."""
_threads = 4


def setNumThreads(n):
    global _threads
    _threads = int(n)


def getNumThreads():
    return _threads
