// placeholder: replaced by the TetGen bridge
extern "C" int cl_tetgen_bridge_placeholder(void);
extern "C" int cl_tetgen_bridge_placeholder(void) { return 0; }
