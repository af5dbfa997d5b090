#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/bio.h>
#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

/* BIO_get_mem_data is a macro, which Swift cannot call. */
static inline long keyshelf_bio_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}
