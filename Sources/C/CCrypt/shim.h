// libxcrypt (Debian's libcrypt1, what /etc/shadow's passwords are hashed with; headers from libcrypt-dev): yescrypt
// for the web remote's password, sha256crypt for its session tokens.
#include <crypt.h>
