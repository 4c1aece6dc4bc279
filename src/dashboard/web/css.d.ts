// Stylesheets are imported for their effect: esbuild gathers them into dist/web/app.css.
declare module "*.css"
