# cleave's shared gnuplot style, loaded by lua/cleave/plot.lua after `set terminal` and before
# every figure, so all figures share fonts, colours and grid. Scripts that call gnuplot directly
# can `load 'plots/style.gp'` too.

# Fonts: one sans-serif family; titles a little larger than labels.
set termoption font "DejaVu Sans,11"
set title font ",13"
set key font ",10"

# Line colours: the Okabe-Ito palette (distinguishable with the common colour-vision
# deficiencies), then the same hues dashed.
set linetype 1 linecolor rgb "#0072B2" linewidth 2 pointtype 7 pointsize 0.8 dashtype solid
set linetype 2 linecolor rgb "#D55E00" linewidth 2 pointtype 5 pointsize 0.8 dashtype solid
set linetype 3 linecolor rgb "#009E73" linewidth 2 pointtype 9 pointsize 0.9 dashtype solid
set linetype 4 linecolor rgb "#CC79A7" linewidth 2 pointtype 11 pointsize 0.9 dashtype solid
set linetype 5 linecolor rgb "#E69F00" linewidth 2 pointtype 13 pointsize 0.9 dashtype solid
set linetype 6 linecolor rgb "#56B4E9" linewidth 2 pointtype 3 pointsize 0.9 dashtype solid
set linetype 7 linecolor rgb "#F0E442" linewidth 2 pointtype 1 pointsize 0.9 dashtype solid
set linetype 8 linecolor rgb "#000000" linewidth 2 pointtype 2 pointsize 0.9 dashtype solid
set linetype cycle 8

# Frame and grid: a light grid behind the data, ticks outside, no frame on top and right.
set border 3 linecolor rgb "#404040" linewidth 1
set tics nomirror out scale 0.6 textcolor rgb "#303030"
set grid xtics ytics linetype 1 linecolor rgb "#dedede" linewidth 0.8 dashtype solid
set grid back
set key noautotitle
set key top right opaque box linecolor rgb "#ffffff" samplen 2.5 spacing 1.15
set style fill solid 1.0 noborder
