/* Newlines in a buffer, counted in place: the compiled core's count (setup.py, XLADOCTOR_COMPILE=1).
 *
 * Why: a log's line numbers need its newlines counted up to each line a finding records, and
 * CPython's bytes.count of one byte is a scalar loop (~3.4 GB/s): on a 500 MB log whose last
 * error is at its end that count was the largest single cost of `explain` (issue 36 item 6,
 * bench/README.md "Logs against rg").  This counts 16 bytes per compare (SSE2, which every x86-64
 * has; 32 with AVX2 where the core has it; a plain loop elsewhere) and reads any buffer (bytes, bytearray, mmap, memoryview) without
 * copying it.  catalogue/newlines.py falls back to bytes.count, with the same answers, where this
 * module is not built (tests/test_newline_count.py compares the two).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#if defined(__SSE2__)
#include <emmintrin.h>

/* Byte counters in four registers: each lane adds at most 1 per 16-byte step, so a run of 255 steps
 * cannot overflow a byte; _mm_sad_epu8 then sums the lanes. */
static Py_ssize_t
count_nl(const unsigned char *p, Py_ssize_t n)
{
    const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
    Py_ssize_t total = 0, i = 0;
    while (n - i >= 64) {
        Py_ssize_t steps = (n - i) / 64;
        if (steps > 255)
            steps = 255;
        __m128i a0 = zero, a1 = zero, a2 = zero, a3 = zero;
        for (Py_ssize_t s = 0; s < steps; s++, i += 64) {
            a0 = _mm_sub_epi8(a0, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + i)), nl));
            a1 = _mm_sub_epi8(a1, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + i + 16)), nl));
            a2 = _mm_sub_epi8(a2, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + i + 32)), nl));
            a3 = _mm_sub_epi8(a3, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + i + 48)), nl));
        }
        __m128i sum = _mm_add_epi64(_mm_add_epi64(_mm_sad_epu8(a0, zero), _mm_sad_epu8(a1, zero)),
                                    _mm_add_epi64(_mm_sad_epu8(a2, zero), _mm_sad_epu8(a3, zero)));
        total += _mm_cvtsi128_si32(sum) + _mm_cvtsi128_si32(_mm_unpackhi_epi64(sum, sum));
    }
    for (; i < n; i++)
        total += p[i] == '\n';
    return total;
}
/* XLADOCTOR_NEWLINE_SSE2_ONLY: built without it, so tests/test_newline_count.py runs the SSE2 loop on a
 * core that has AVX2 too. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(XLADOCTOR_NEWLINE_SSE2_ONLY)
#include <immintrin.h>
#define HAVE_AVX2_PATH 1

/* The same with 32-byte compares, for a core that has AVX2 (asked once, at import): a stretch the
 * planner has just searched is counted from the core's cache, where twice the width counts it in
 * about half the time (256 kB: ~9 against ~18 us). */
__attribute__((target("avx2"))) static Py_ssize_t
count_nl_avx2(const unsigned char *p, Py_ssize_t n)
{
    const __m256i nl = _mm256_set1_epi8('\n'), zero = _mm256_setzero_si256();
    Py_ssize_t total = 0, i = 0;
    while (n - i >= 128) {
        Py_ssize_t steps = (n - i) / 128;
        if (steps > 255)
            steps = 255;
        __m256i a0 = zero, a1 = zero, a2 = zero, a3 = zero;
        for (Py_ssize_t s = 0; s < steps; s++, i += 128) {
            a0 = _mm256_sub_epi8(a0, _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(p + i)), nl));
            a1 = _mm256_sub_epi8(a1, _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(p + i + 32)), nl));
            a2 = _mm256_sub_epi8(a2, _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(p + i + 64)), nl));
            a3 = _mm256_sub_epi8(a3, _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(p + i + 96)), nl));
        }
        __m256i sum = _mm256_add_epi64(_mm256_add_epi64(_mm256_sad_epu8(a0, zero), _mm256_sad_epu8(a1, zero)),
                                       _mm256_add_epi64(_mm256_sad_epu8(a2, zero), _mm256_sad_epu8(a3, zero)));
        __m128i half = _mm_add_epi64(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
        total += _mm_cvtsi128_si64(half) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(half, half));
    }
    return total + count_nl(p + i, n - i);
}
#endif
#else
static Py_ssize_t
count_nl(const unsigned char *p, Py_ssize_t n)
{
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        total += p[i] == '\n';
    return total;
}
#endif

static Py_ssize_t (*counter)(const unsigned char *, Py_ssize_t) = count_nl;

/* count(buffer, start, stop): newlines in buffer[start:stop], the indices read as bytes.count reads
 * them (negative from the end, clipped to the buffer). */
static PyObject *
count(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer view;
    Py_ssize_t start, stop, n;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "count(buffer, start, stop) takes 3 arguments");
        return NULL;
    }
    start = PyNumber_AsSsize_t(args[1], PyExc_OverflowError);
    if (start == -1 && PyErr_Occurred())
        return NULL;
    stop = PyNumber_AsSsize_t(args[2], PyExc_OverflowError);
    if (stop == -1 && PyErr_Occurred())
        return NULL;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    if (stop > view.len)
        stop = view.len;
    else if (stop < 0 && (stop += view.len) < 0)
        stop = 0;
    if (start < 0 && (start += view.len) < 0)
        start = 0;
    n = start < stop ? counter((const unsigned char *)view.buf + start, stop - start) : 0;
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(n);
}

static PyMethodDef methods[] = {
    {"count", (PyCFunction)(void (*)(void))count, METH_FASTCALL,
     "count(buffer, start, stop) -> newlines in buffer[start:stop], without a copy."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_newline_count",
    "Newlines in a buffer, counted in place (SSE2): the compiled core's catalogue/newlines count.", -1, methods,
};

PyMODINIT_FUNC
PyInit__newline_count(void)
{
#ifdef HAVE_AVX2_PATH
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        counter = count_nl_avx2;
#endif
    return PyModule_Create(&module);
}
