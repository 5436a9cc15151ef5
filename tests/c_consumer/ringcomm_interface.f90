! Fortran interface to ringcomm's C API (ringcomm.h) through ISO_C_BINDING: the handles are
! bind(c) types of one 64-bit id passed by value, strings end in c_null_char, callbacks are
! bind(c) procedures passed with c_funloc. Only what fortran_byte_histogram.f90 uses, plus settings.
module ringcomm
  use, intrinsic :: iso_c_binding
  implicit none

  integer(c_int), parameter :: RINGCOMM_OK = 0
  integer(c_int), parameter :: RINGCOMM_BYTE = 1, RINGCOMM_FLOAT64 = 5

  type, bind(c) :: ringcomm_settings
    integer(c_int64_t) :: id = 0
  end type
  type, bind(c) :: ringcomm_session
    integer(c_int64_t) :: id = 0
  end type
  type, bind(c) :: ringcomm_array
    integer(c_int64_t) :: id = 0
  end type
  type, bind(c) :: ringcomm_messages
    integer(c_int64_t) :: id = 0
  end type
  type, bind(c) :: ringcomm_produce_info
    integer(c_int) :: thread
    integer(c_size_t) :: round
    integer(c_int64_t) :: measurement
  end type

  interface
    integer(c_int) function ringcomm_settings_create(settings) bind(c)
      import :: c_int, ringcomm_settings
      type(ringcomm_settings), intent(out) :: settings
    end function
    integer(c_int) function ringcomm_settings_set(settings, name, value) bind(c)
      import :: c_int, c_char, ringcomm_settings
      type(ringcomm_settings), value :: settings
      character(kind=c_char), dimension(*), intent(in) :: name, value
    end function
    integer(c_int) function ringcomm_settings_free(settings) bind(c)
      import :: c_int, ringcomm_settings
      type(ringcomm_settings), intent(inout) :: settings
    end function
    integer(c_int) function ringcomm_session_create(settings, session) bind(c)
      import :: c_int, ringcomm_settings, ringcomm_session
      type(ringcomm_settings), value :: settings
      type(ringcomm_session), intent(out) :: session
    end function
    integer(c_int) function ringcomm_session_rank(session, rank, ranks) bind(c)
      import :: c_int, ringcomm_session
      type(ringcomm_session), value :: session
      integer(c_int), intent(out) :: rank, ranks
    end function
    integer(c_int) function ringcomm_session_threads(session, threads) bind(c)
      import :: c_int, ringcomm_session
      type(ringcomm_session), value :: session
      integer(c_int), intent(out) :: threads
    end function
    integer(c_int) function ringcomm_session_describe(session, text, size) bind(c)
      import :: c_int, c_char, c_size_t, ringcomm_session
      type(ringcomm_session), value :: session
      character(kind=c_char), dimension(*), intent(out) :: text
      integer(c_size_t), value :: size
    end function
    integer(c_int) function ringcomm_array_create(session, type, entries, label, array) bind(c)
      import :: c_int, c_size_t, c_char, ringcomm_session, ringcomm_array
      type(ringcomm_session), value :: session
      integer(c_int), value :: type
      integer(c_size_t), value :: entries
      character(kind=c_char), dimension(*), intent(in) :: label
      type(ringcomm_array), intent(out) :: array
    end function
    integer(c_int) function ringcomm_array_slice(array, type, data, first, count) bind(c)
      import :: c_int, c_size_t, c_ptr, ringcomm_array
      type(ringcomm_array), value :: array
      integer(c_int), value :: type
      type(c_ptr), intent(out) :: data
      integer(c_size_t), intent(out) :: first, count
    end function
    integer(c_int) function ringcomm_array_sum_across_rings(array) bind(c)
      import :: c_int, ringcomm_array
      type(ringcomm_array), value :: array
    end function
    integer(c_int) function ringcomm_array_gather(array, type, out, entries) bind(c)
      import :: c_int, c_size_t, c_double, ringcomm_array
      type(ringcomm_array), value :: array
      integer(c_int), value :: type
      real(c_double), dimension(*), intent(out) :: out
      integer(c_size_t), value :: entries
    end function
    integer(c_int) function ringcomm_messages_create(session, type, count, messages) bind(c)
      import :: c_int, c_size_t, ringcomm_session, ringcomm_messages
      type(ringcomm_session), value :: session
      integer(c_int), value :: type
      integer(c_size_t), value :: count
      type(ringcomm_messages), intent(out) :: messages
    end function
    integer(c_int) function ringcomm_messages_run(messages, type, count, rounds, produce, consume, user_data) bind(c)
      import :: c_int, c_size_t, c_funptr, c_ptr, ringcomm_messages
      type(ringcomm_messages), value :: messages
      integer(c_int), value :: type
      integer(c_size_t), value :: count, rounds
      type(c_funptr), value :: produce, consume
      type(c_ptr), value :: user_data
    end function
    integer(c_int) function ringcomm_finalize() bind(c)
      import :: c_int
    end function
    subroutine ringcomm_exit_on_error(status) bind(c)
      import :: c_int
      integer(c_int), value :: status
    end subroutine
  end interface

contains

  ! Stops the program the way ringcomm's own programs do when `status` is an error.
  subroutine ringcomm_check(status)
    integer(c_int), intent(in) :: status
    if (status /= RINGCOMM_OK) call ringcomm_exit_on_error(status)
  end subroutine

end module ringcomm
