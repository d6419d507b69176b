"""The file layouts corpora come in, one module each, as in ir_datasets' ``formats``: record
parsing, the ir_datasets components and the import validation of that layout. A corpus (a
collection module beside this package) names its layout's corpus class and its data."""
