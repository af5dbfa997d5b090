#include <oath.h>
