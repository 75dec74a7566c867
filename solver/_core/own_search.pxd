# What a game module that compiles the core's alpha-beta itself (GameOps.search, alphabeta.pxi)
# cimports besides search.pxd: the return type that has the compiler inline the game into it.
# Apart from search.pxd so that the warning it turns off stays off only in such a module.

cdef extern from *:
    """
    /* flat_int: int as the return type of a game's own copy of the alpha-beta, asking the
       compiler to inline every call in it but the recursion: the game's functions have other
       callers too (its GameOps entries), so it would not inline them all of itself.  Cython
       also declares the function's result variable with this type, where the attribute means
       nothing: GCC's warning that it ignores it there is turned off (in this module alone). */
    #if defined(__GNUC__)
    #pragma GCC diagnostic ignored "-Wattributes"
    #define DD_FLAT_INT __attribute__((flatten)) int
    #else
    #define DD_FLAT_INT int
    #endif
    """
    ctypedef int flat_int "DD_FLAT_INT"
