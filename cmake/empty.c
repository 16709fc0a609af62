/* Placeholder so a module folder with no sources yet still forms a library. */
typedef int rt_empty_translation_unit;
