#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/param_build.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>

/* BIO_new_mem_buf's length is an int; a function, so Swift sees one signature. */
static inline BIO *keyshelf_bio_read_only(const void *bytes, int length) {
    return BIO_new_mem_buf(bytes, length);
}

/* EVP_PKEY_PUBLIC_KEY is a compound macro Swift cannot import. */
static inline int keyshelf_evp_pkey_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }

/* OSSL_PARAM_BLD keeps the key name's pointer, so the names must outlive the
   builder: C string literals here, not Swift's temporary C strings. */
static inline int keyshelf_param_bld_push_rsa_public(OSSL_PARAM_BLD *builder, const BIGNUM *n, const BIGNUM *e) {
    return OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, n) == 1
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, e) == 1;
}

#include <openssl/cms.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

/* BIO_get_mem_data is a macro, which Swift cannot call. */
static inline long keyshelf_bio_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}
