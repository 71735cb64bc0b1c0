/*
 * feedback/text_records_undef.h - forgets the TF_* item macros of
 * text_records.h, so that the next expansion of the record lists can
 * define them anew.  Included (without a guard) after every expansion.
 */
#undef TF_LIT
#undef TF_KIND
#undef TF_SP
#undef TF_COLON
#undef TF_NUM
#undef TF_ID
#undef TF_HEX
#undef TF_BREF
#undef TF_LINECOL
#undef TF_NAME
#undef TF_PAIR
#undef TF_OPTNAME
#undef TF_VPVAL
