! The byte histogram of tests/consumer in Fortran, through the C API (module ringcomm in
! ringcomm_interface.f90): messages of bytes from every walker thread of every rank, a distributed
! array of 256 bins, rank 0 checks the gathered histogram against a serial count.
module histogram_callbacks
  use, intrinsic :: iso_c_binding
  use ringcomm, only: ringcomm_produce_info
  implicit none
  integer, parameter :: message_bytes = 10000, bins = 256

  ! This rank's slice of the bins, handed to consume as user data.
  type :: slice_t
    real(c_double), pointer :: counts(:) => null()
    integer(c_size_t) :: first = 0
  end type

contains

  ! Byte i (from 0) of the message of measurement m; the formula of the C and C++ consumers.
  pure integer function pattern(m, i)
    integer(c_int64_t), intent(in) :: m
    integer(c_size_t), intent(in) :: i
    pattern = int(mod(i * (m + 1) + 31 * (m / 7) + i / 97, 251_c_int64_t))
  end function

  integer(c_int) function produce(message, count, type, info, user_data) bind(c)
    type(c_ptr), value :: message, user_data
    integer(c_size_t), value :: count
    integer(c_int), value :: type
    type(ringcomm_produce_info), intent(in) :: info
    integer(c_int8_t), pointer :: bytes(:)
    integer(c_size_t) :: i
    call c_f_pointer(message, bytes, [count])
    do i = 0, count - 1
      bytes(i + 1) = int(pattern(info%measurement, i) - merge(256, 0, pattern(info%measurement, i) > 127), c_int8_t)
    end do
    produce = 0
  end function

  integer(c_int) function consume(message, count, type, origin, thread, user_data) bind(c)
    type(c_ptr), value :: message, user_data
    integer(c_size_t), value :: count
    integer(c_int), value :: type, origin, thread
    integer(c_int8_t), pointer :: bytes(:)
    type(slice_t), pointer :: slice
    integer(c_size_t) :: i, value
    call c_f_pointer(message, bytes, [count])
    call c_f_pointer(user_data, slice)
    do i = 1, count
      value = iand(int(bytes(i), c_size_t), 255_c_size_t)
      if (value >= slice%first .and. value < slice%first + size(slice%counts)) &
        slice%counts(value - slice%first + 1) = slice%counts(value - slice%first + 1) + 1
    end do
    consume = 0
  end function

end module histogram_callbacks

program fortran_byte_histogram
  use, intrinsic :: iso_c_binding
  use ringcomm
  use histogram_callbacks
  implicit none
  type(ringcomm_session) :: session
  type(ringcomm_array) :: histogram
  type(ringcomm_messages) :: messages
  type(ringcomm_settings) :: no_settings
  type(slice_t), target :: slice
  type(c_ptr) :: data
  integer(c_size_t) :: count, i
  integer(c_size_t), parameter :: rounds = 3
  integer(c_int) :: rank, ranks, threads
  integer(c_int64_t) :: m, measurements
  real(c_double) :: gathered(bins), expected(bins)
  character(kind=c_char, len=256) :: schedule

  call ringcomm_check(ringcomm_session_create(no_settings, session))
  call ringcomm_check(ringcomm_session_rank(session, rank, ranks))
  call ringcomm_check(ringcomm_session_threads(session, threads))
  call ringcomm_check(ringcomm_array_create(session, RINGCOMM_FLOAT64, int(bins, c_size_t), &
                                            "byte histogram" // c_null_char, histogram))
  call ringcomm_check(ringcomm_messages_create(session, RINGCOMM_BYTE, int(message_bytes, c_size_t), messages))
  call ringcomm_check(ringcomm_session_describe(session, schedule, int(len(schedule), c_size_t)))
  if (rank == 0) print '(a, a)', 'fortran_byte_histogram: ', schedule(1:index(schedule, c_null_char) - 1)

  call ringcomm_check(ringcomm_array_slice(histogram, RINGCOMM_FLOAT64, data, slice%first, count))
  call c_f_pointer(data, slice%counts, [count])
  call ringcomm_check(ringcomm_messages_run(messages, RINGCOMM_BYTE, int(message_bytes, c_size_t), rounds, &
                                            c_funloc(produce), c_funloc(consume), c_loc(slice)))
  call ringcomm_check(ringcomm_array_sum_across_rings(histogram))
  call ringcomm_check(ringcomm_array_gather(histogram, RINGCOMM_FLOAT64, gathered, int(bins, c_size_t)))

  if (rank == 0) then
    measurements = int(rounds, c_int64_t) * ranks * threads
    expected = 0
    do m = 0, measurements - 1
      do i = 0, message_bytes - 1
        expected(pattern(m, i) + 1) = expected(pattern(m, i) + 1) + 1
      end do
    end do
    if (all(gathered == expected)) then
      print '(a, i0, a, i0, a)', 'fortran_byte_histogram: histogram of ', measurements, ' messages x ', &
        message_bytes, ' bytes matches'
    else
      print '(a)', 'fortran_byte_histogram: histogram DIFFERS from the serial count'
      call ringcomm_check(ringcomm_finalize())
      stop 1
    end if
  end if
  call ringcomm_check(ringcomm_finalize())
end program
