/*
 * cairo_dl: cairo and fontconfig loaded with dlopen when a plot is drawn, not at every start.
 *
 * Owns: the table of the cairo and fontconfig functions src/plot calls and its one-time load.
 * Linking cairo made every command (query, mark, ...) load cairo, pixman, freetype and the X11
 * client libraries at start (docs/performance.md, "One-shot"). After this header, plot code calls
 * the usual names (cairo_move_to, FcFini), which go through the table; call gw_cairo_load first.
 * Must not: draw (plot.c does).
 */
#ifndef GW_CAIRO_DL_H
#define GW_CAIRO_DL_H

#include "util/gw_error.h"

#include <cairo-svg.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>

#define GW_CAIRO_FUNCS(X)                                                                          \
    X(cairo_clip)                                                                                  \
    X(cairo_create)                                                                                \
    X(cairo_debug_reset_static_data)                                                               \
    X(cairo_destroy)                                                                               \
    X(cairo_image_surface_create)                                                                  \
    X(cairo_line_to)                                                                               \
    X(cairo_move_to)                                                                               \
    X(cairo_paint)                                                                                 \
    X(cairo_rectangle)                                                                             \
    X(cairo_restore)                                                                               \
    X(cairo_rotate)                                                                                \
    X(cairo_save)                                                                                  \
    X(cairo_select_font_face)                                                                      \
    X(cairo_set_dash)                                                                              \
    X(cairo_set_font_size)                                                                         \
    X(cairo_set_line_width)                                                                        \
    X(cairo_set_source_rgb)                                                                        \
    X(cairo_show_text)                                                                             \
    X(cairo_status_to_string)                                                                      \
    X(cairo_stroke)                                                                                \
    X(cairo_surface_destroy)                                                                       \
    X(cairo_surface_finish)                                                                        \
    X(cairo_surface_status)                                                                        \
    X(cairo_surface_write_to_png_stream)                                                           \
    X(cairo_svg_surface_create_for_stream)                                                         \
    X(cairo_text_extents)                                                                          \
    X(cairo_translate)

#define GW_FC_FUNCS(X) X(FcFini)

#define GW_DL_MEMBER(f) __typeof__(&f) f;
typedef struct gw_cairo_api {
    GW_CAIRO_FUNCS(GW_DL_MEMBER)
    GW_FC_FUNCS(GW_DL_MEMBER)
} gw_cairo_api;
#undef GW_DL_MEMBER

extern gw_cairo_api gw_cairo;

/* Loads libcairo.so.2 and libfontconfig.so.1 once per process. Errors: GW_E_NOTFOUND naming the
 * library and the Debian package that provides it. */
GW_MUST_USE gw_rc gw_cairo_load(gw_error *err);

/* Calls by the usual names go through the table (not in cairo_dl.c, which fills it). */
#ifndef GW_CAIRO_DL_IMPL
#define cairo_clip                          gw_cairo.cairo_clip
#define cairo_create                        gw_cairo.cairo_create
#define cairo_debug_reset_static_data       gw_cairo.cairo_debug_reset_static_data
#define cairo_destroy                       gw_cairo.cairo_destroy
#define cairo_image_surface_create          gw_cairo.cairo_image_surface_create
#define cairo_line_to                       gw_cairo.cairo_line_to
#define cairo_move_to                       gw_cairo.cairo_move_to
#define cairo_paint                         gw_cairo.cairo_paint
#define cairo_rectangle                     gw_cairo.cairo_rectangle
#define cairo_restore                       gw_cairo.cairo_restore
#define cairo_rotate                        gw_cairo.cairo_rotate
#define cairo_save                          gw_cairo.cairo_save
#define cairo_select_font_face              gw_cairo.cairo_select_font_face
#define cairo_set_dash                      gw_cairo.cairo_set_dash
#define cairo_set_font_size                 gw_cairo.cairo_set_font_size
#define cairo_set_line_width                gw_cairo.cairo_set_line_width
#define cairo_set_source_rgb                gw_cairo.cairo_set_source_rgb
#define cairo_show_text                     gw_cairo.cairo_show_text
#define cairo_status_to_string              gw_cairo.cairo_status_to_string
#define cairo_stroke                        gw_cairo.cairo_stroke
#define cairo_surface_destroy               gw_cairo.cairo_surface_destroy
#define cairo_surface_finish                gw_cairo.cairo_surface_finish
#define cairo_surface_status                gw_cairo.cairo_surface_status
#define cairo_surface_write_to_png_stream   gw_cairo.cairo_surface_write_to_png_stream
#define cairo_svg_surface_create_for_stream gw_cairo.cairo_svg_surface_create_for_stream
#define cairo_text_extents                  gw_cairo.cairo_text_extents
#define cairo_translate                     gw_cairo.cairo_translate
#define FcFini                              gw_cairo.FcFini
#endif

#endif
