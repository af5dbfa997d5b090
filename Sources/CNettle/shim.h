#include <nettle/hmac.h>
