#include <libretro-common/libretro.h>
