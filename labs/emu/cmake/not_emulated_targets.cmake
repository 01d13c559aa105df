# CMake glue for building a whole CUDA project tree with nvcc-emu, where some of its targets
# use CUDA's libraries, which the emulator does not offer (cuBLAS, cuFFT, NPP, nvJPEG, NVRTC,
# libNVVM, the driver API's libcuda):
#
#   cmake -S cuda-samples -B build -DCMAKE_CUDA_COMPILER=<kit>/labs/emu/bin/nvcc-emu \
#         -DCMAKE_PROJECT_INCLUDE=<kit>/labs/emu/cmake/not_emulated_targets.cmake
#
# find_package(CUDAToolkit) finds the runtime (CUDA::cudart) in nvcc-emu's toolkit layout and
# none of the libraries, so a tree whose targets link CUDA::cublas and kin would not even
# configure. Included after each project(), this file declares each missing CUDA:: target as
# an interface that links -l<library>: the tree configures, the runtime-API targets build, and
# a target that needs a library fails at its build, naming it (its header is an #error in
# labs/emu/include/not_emulated, or the link cannot find -l<library>).

set(_cudaemu_libraries
    cublas cublasLt cufft cufftw curand cusolver cusparse nppc nppial nppicc nppidei nppif nppig
    nppim nppist nppisu nppitc npps nvjpeg nvrtc nvJitLink nvml nvptxcompiler cupti nvperf_host
    nvperf_target cuda_driver cufile cudla)
foreach(_cudaemu_library IN LISTS _cudaemu_libraries)
  foreach(_cudaemu_suffix "" "_static" "_static_nocallback")
    set(_cudaemu_target "CUDA::${_cudaemu_library}${_cudaemu_suffix}")
    if(NOT TARGET ${_cudaemu_target})
      add_library(${_cudaemu_target} INTERFACE IMPORTED GLOBAL)
      set_target_properties(${_cudaemu_target} PROPERTIES INTERFACE_LINK_LIBRARIES "${_cudaemu_library}")
    endif()
  endforeach()
endforeach()

# Libraries such trees look for by hand (cuda-samples' libNVVM and jitLto samples).
foreach(_cudaemu_variable NVVM_LIB NVJITLINK_LIB)
  if(NOT ${_cudaemu_variable})
    string(TOLOWER "${_cudaemu_variable}" _cudaemu_name)
    string(REGEX REPLACE "_lib$" "" _cudaemu_name "${_cudaemu_name}")
    set(${_cudaemu_variable} "${_cudaemu_name}" CACHE STRING "not emulated: links -l${_cudaemu_name}" FORCE)
  endif()
endforeach()
