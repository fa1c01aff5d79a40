# A run's control words, which the game loops share with the process that runs them:
# control[0], a stop flag that the run's driver sets (from another thread or another
# process), and control[1], the games this worker has played, which the driver reads for
# its progress. Both are accessed through volatile pointers: they change under a running
# loop, and the loop must see the change at its next game.

cdef extern from *:
    """
    #include <stdint.h>
    static inline int tf_stop_asked(const int64_t* control) {
        return control != 0 && *(volatile const int64_t*)control != 0;
    }
    static inline void tf_count_game(int64_t* control) {
        if (control != 0) {
            volatile int64_t* n = (volatile int64_t*)(control + 1);
            *n = *n + 1;
        }
    }
    """
    bint stop_asked "tf_stop_asked"(const int64_t* control) noexcept nogil
    void count_game "tf_count_game"(int64_t* control) noexcept nogil
