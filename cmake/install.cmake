# install.cmake — what `make install` (cmake --install) puts under the prefix:
#   bin/tilec                          the CLI
#   include/tilec/{api,diag,scalar,tir,runtime,aot,tilec,host,cache}.h
#   lib/libtilec.so.MAJOR.MINOR(.PATCH) and its links, lib/libtilec.a
#   lib/libtilec_rt.so.MAJOR.MINOR(.PATCH) and its links, lib/libtilec_rt.a
#                                      the runtime library (no LLVM)
#   lib/pkgconfig/tilec.pc             pkg-config (--static adds LLVM, SLEEF)
#   lib/pkgconfig/tilec-rt.pc          for ahead-of-time objects (adds SLEEF)
#   lib/cmake/tilec/                   find_package(tilec) → tilec::tilec,
#                                      tilec::tilec_rt
# docs/install.md says how to use each.
include(CMakePackageConfigHelpers)

install(TARGETS tilec-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES include/tilec/api.h include/tilec/diag.h include/tilec/scalar.h include/tilec/tir.h
  include/tilec/runtime.h include/tilec/aot.h include/tilec/tilec.h include/tilec/pipeline.h include/tilec/host.h
  include/tilec/cache.h include/tilec/module.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tilec)
install(TARGETS tilec_shared tilec_rt_shared EXPORT tilecTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${TILEC_STATIC} ${TILEC_RT_STATIC} DESTINATION ${CMAKE_INSTALL_LIBDIR})

# pkg-config: relocatable (the prefix is found from the .pc file's own
# directory, so `cmake --install --prefix` and DESTDIR both work), with the
# static library's private dependencies as linker flags.
file(RELATIVE_PATH TILEC_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
string(REGEX REPLACE "/$" "" TILEC_PC_TO_PREFIX "${TILEC_PC_TO_PREFIX}")
set(TILEC_PC_PRIVATE "${TILEC_LLVM_LIB} ${TILEC_SLEEF_LIB} -lpthread -lm")
configure_file(cmake/tilec.pc.in ${PROJECT_BINARY_DIR}/tilec.pc @ONLY)
# The runtime library's: ahead-of-time objects call SLEEF themselves, so it
# is a public dependency there.
set(TILEC_RT_PC_LIBS "${TILEC_SLEEF_LIB} -lpthread -lm")
configure_file(cmake/tilec-rt.pc.in ${PROJECT_BINARY_DIR}/tilec-rt.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/tilec.pc ${PROJECT_BINARY_DIR}/tilec-rt.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set(TILEC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tilec)
install(EXPORT tilecTargets NAMESPACE tilec:: DESTINATION ${TILEC_CMAKE_DIR})
configure_package_config_file(cmake/tilecConfig.cmake.in ${PROJECT_BINARY_DIR}/tilecConfig.cmake
  INSTALL_DESTINATION ${TILEC_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tilecConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tilecConfig.cmake ${PROJECT_BINARY_DIR}/tilecConfigVersion.cmake
  DESTINATION ${TILEC_CMAKE_DIR})
