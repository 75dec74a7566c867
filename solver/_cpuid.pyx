# cython: language_level=3
"""What the CPU running this process can execute (compiled for the x86-64
baseline only, so that it loads anywhere and can tell which build of the
search kernels to load: see ddcards._kernels)."""

cdef extern from *:
    """
    static int dd_cpu_level(int level) {
    #if defined(__x86_64__) && defined(__GNUC__)
        __builtin_cpu_init();
        if (level == 3) {
    #if !defined(__clang__) && __GNUC__ >= 12
            return __builtin_cpu_supports("x86-64-v3") != 0;
    #else
            return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
                   __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("fma") &&
                   __builtin_cpu_supports("popcnt");
    #endif
        }
        return level <= 1;
    #else
        return 0;
    #endif
    }
    """
    int dd_cpu_level(int level) nogil


def supports_x86_64_v3():
    """Can this CPU run code compiled for x86-64-v3 (AVX2, BMI1/2, FMA, LZCNT, MOVBE)?"""
    return bool(dd_cpu_level(3))
