"""ctrecon.Operator: the engine's projector pair (_ctrecon.Operator, C) with
what Python's numerical stack expects of a linear operator on top."""
import numpy as np

from . import _ctrecon


class Operator(_ctrecon.Operator):
    __doc__ = _ctrecon.Operator.__doc__

    def as_linear_operator(self):
        """This operator as scipy.sparse.linalg.LinearOperator of shape
        (n_views·n_rows·n_cols, nz·ny·nx) on flattened C-order vectors:
        matvec(x) = forward(x) and rmatvec(y) = adjoint(y), computed in
        float32 by the engine and returned as float64 (SciPy's solvers, e.g.
        lsqr, work in float64).  Needs SciPy (Debian: python3-scipy)."""
        from scipy.sparse.linalg import LinearOperator

        data_shape, image_shape = self.shape
        m, n = int(np.prod(data_shape)), int(np.prod(image_shape))

        def matvec(x):
            x = np.asarray(x, dtype=np.float32).reshape(image_shape)
            return self.forward(x).reshape(m).astype(np.float64)

        def rmatvec(y):
            y = np.asarray(y, dtype=np.float32).reshape(data_shape)
            return self.adjoint(y).reshape(n).astype(np.float64)

        return LinearOperator((m, n), matvec=matvec, rmatvec=rmatvec, dtype=np.float64)
