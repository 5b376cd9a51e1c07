# Warnings, sanitizers and tuning shared by every cleave target.
set(CLEAVE_C_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes
    -Wmissing-prototypes -Wno-unused-parameter -Wvla -Wformat=2)
if(CLEAVE_WERROR)
  list(APPEND CLEAVE_C_WARNINGS -Werror)
endif()
set(CLEAVE_SAN_FLAGS "")
if(CLEAVE_SANITIZE)
  # float-cast-overflow is not part of GCC's "undefined": a double too large for the int it is cast
  # to (a cluster count, a grid size) is undefined behaviour the tests must catch (docs/GUARANTEES.md)
  set(CLEAVE_SAN_FLAGS -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer
      -fno-sanitize-recover=undefined,float-cast-overflow)
  add_compile_options(${CLEAVE_SAN_FLAGS})
  add_link_options(${CLEAVE_SAN_FLAGS})
endif()
if(CLEAVE_VALIDATE)
  # the step checks every body's invariants after each phase (src/world/validate.c)
  add_compile_definitions(CLEAVE_VALIDATE=1)
endif()
if(CLEAVE_NATIVE)
  add_compile_options(-march=native)
endif()

# cleave_target_defaults(target): warnings and include paths for a cleave C target.
function(cleave_target_defaults tgt)
  target_compile_options(${tgt} PRIVATE $<$<COMPILE_LANGUAGE:C>:${CLEAVE_C_WARNINGS}>)
endfunction()

# sqrt and friends never set errno in cleave; letting gcc inline them without the errno call is a
# measurable gain in the 3x3 kernels (helpers measured a few percent on the SVD).
add_compile_options($<$<COMPILE_LANGUAGE:C>:-fno-math-errno>)
