# rooftune figure 'table2-breakdown' (stacked): breakdown of the best point (by gflops) per kernel, 4 stacked values
# Reads table2-breakdown.dat from this folder and writes table2-breakdown.png and table2-breakdown.svg next to it.
# Regenerate: cd results/figures/netns/stationary-spmm && gnuplot table2-breakdown.gp

reset
set encoding utf8
set linetype 1 lc rgb '#0072B2' lw 2 pt 5 ps 1.1 dt 1
set linetype 2 lc rgb '#D55E00' lw 2 pt 7 ps 1.1 dt 1
set linetype 3 lc rgb '#009E73' lw 2 pt 9 ps 1.1 dt 1
set linetype 4 lc rgb '#CC79A7' lw 2 pt 11 ps 1.1 dt 1
set linetype 5 lc rgb '#E69F00' lw 2 pt 5 ps 1.1 dt 1
set linetype 6 lc rgb '#56B4E9' lw 2 pt 7 ps 1.1 dt 1
set linetype 7 lc rgb '#000000' lw 2 pt 9 ps 1.1 dt 1
set linetype 8 lc rgb '#F0E442' lw 2 pt 11 ps 1.1 dt 1
set linetype cycle 8
set border 3 lc rgb '#404040'
set tics nomirror out
set grid xtics ytics back lt 1 lc rgb '#dcdcdc' lw 1
set key outside right top vertical Left reverse samplen 2 spacing 1.2
set datafile missing '?'
set title 'Time breakdown per variant (average over ranks)'
set xlabel 'kernel'
set ylabel 'stacked values (seconds)'
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border lc rgb '#404040'
set boxwidth 0.7 relative
set grid noxtics
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0
set xtics rotate by 30 right

# PNG: cairo when this gnuplot has it (antialiased, same font as the SVG), else libgd.
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
} else {
    set terminal png size 1024,640 noenhanced
}
set output 'table2-breakdown.png'
plot 'table2-breakdown.dat' using 5:xtic(1) lt 1 dt 1 title 'compute_s_avg', \
     '' using 6 lt 2 dt 1 title 'comm_s_avg', \
     '' using 7 lt 3 dt 1 title 'accum_s_avg', \
     '' using 8 lt 4 dt 1 title 'imbalance_s_avg', \
     '' using 0:2:(gprintf('%.4g', $2)) with labels center offset 0,0.7 font ',9' notitle

set terminal svg size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
set output 'table2-breakdown.svg'
plot 'table2-breakdown.dat' using 5:xtic(1) lt 1 dt 1 title 'compute_s_avg', \
     '' using 6 lt 2 dt 1 title 'comm_s_avg', \
     '' using 7 lt 3 dt 1 title 'accum_s_avg', \
     '' using 8 lt 4 dt 1 title 'imbalance_s_avg', \
     '' using 0:2:(gprintf('%.4g', $2)) with labels center offset 0,0.7 font ',9' notitle
unset output
