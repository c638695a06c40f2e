/* A CPython extension module with an OpenMP parallel region, as in
 * numerical Python packages: ompext.run(N) runs N threads that libgomp
 * binds to their places (OMP_PROC_BIND) and that each malloc once.
 * Returns the number of threads that ran. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "parallel.h"

PyMODINIT_FUNC PyInit_ompext(void);

static PyObject *run(PyObject *self, PyObject *args)
{
    int requested, ran;
    (void)self;
    if (!PyArg_ParseTuple(args, "i", &requested))
        return NULL;
    if (requested < 1 || requested > 1024) {
        PyErr_SetString(PyExc_ValueError, "threads must be 1 to 1024");
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    ran = malloc_in_parallel(requested);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(ran);
}

static PyMethodDef methods[] = {
    { "run", run, METH_VARARGS, "run(threads): an OpenMP region that mallocs in every thread" },
    { NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "ompext", NULL, -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_ompext(void)
{
    return PyModule_Create(&module);
}
